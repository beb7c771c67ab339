#pragma once
// y = x W^T + b for a weight kept packed (BF16 or a GGUF type) in the mapping: W is decoded a
// panel of output rows at a time into per-thread f32 scratch and multiplied there, so no f32
// copy of the model exists. The tokens x are packed once per product into the GEMM's layout
// (Eigen's gebp blocks: Goto & van de Geijn, "Anatomy of high-performance matrix
// multiplication", 2008) and shared by every panel, instead of being repacked per panel.
#include "attn/models/model_weights.h"
#include "attn/models/nn_ops.h"

namespace attn::models {

/// linear() for `l.w.isPacked()` and `!l.inOut`: y [x.rows(), l.out()].
void linearPackedPanels(const ConstMatRef& x, const LinearWeight& l, Mat& y);

}  // namespace attn::models
