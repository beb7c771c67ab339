#pragma once
// y = x W^T + b for a few hundred tokens (a vision transformer's 50-257, a prompt) with f32 or
// BF16 weights, on AVX-512: the tokens are transposed once per product into 32-row tiles, and
// each 32 x 12 block of the output is a register tile fed by the weights' own rows (broadcast
// from the mapping, or from a 12-row BF16 panel decoded into L1), so W is never repacked —
// the GEMM's cost is its multiply-adds (Goto & van de Geijn, "Anatomy of high-performance
// matrix multiplication", 2008, with the roles of A and B swapped because x is the small one).
#include "attn/models/model_weights.h"
#include "attn/models/nn_ops.h"

namespace attn::models {

/// linear() for nn.Linear weights in f32 or BF16, and Conv1D weights (`l.inOut`, GPT-2) in f32,
/// when this engine copy has AVX-512 and the shape suits the kernel (16-1024 tokens, depth a
/// multiple of 16); false, with y untouched, otherwise.
bool linearTokenGemm(const ConstMatRef& x, const LinearWeight& l, Mat& y);

}  // namespace attn::models
