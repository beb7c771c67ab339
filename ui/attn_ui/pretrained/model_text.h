#pragma once
// How a pretrained model is described to a reader: its parameter count
// ("124.4 M"), its shape ("12 layers × 12 heads of 64"), and why each
// configuration control does not apply while it is open.
#include <QString>

#include "attn/models/model.h"

namespace attn::ui {

/// 124439808 -> "124.4 M", 1100048384 -> "1.10 B", 85120 -> "85.1 K", 900 -> "900".
QString parameterCountText(long long parameters);
/// "12 layers × 12 heads of 64", plus " (4 KV heads)" when grouped-query attention shares keys.
QString modelShapeText(const attn::models::ModelInfo& info);
/// "GPT-2 (gpt2)": the family, and the config's model_type when it says more.
QString modelFamilyText(const attn::models::ModelInfo& info);

/// What the weights are: "Q4_K_M, 4.8 bits/weight" for a GGUF file (llama.cpp's file type
/// and the bits each weight takes, as `attnscope-cli info` says), else the dtype on disk
/// ("F16", "BF16", "F32").
QString modelWeightsText(const attn::models::ModelInfo& info);

/// Tooltips for configuration controls that a fixed model decides.
struct FixedByModel {
  QString mechanism, sizes, temperature, init, mask, positional, execution, keyText;
};
FixedByModel fixedByModel(const attn::models::ModelInfo& info);

}  // namespace attn::ui
