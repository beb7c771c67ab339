#pragma once
// The attention configuration a pretrained model's heads correspond to, so
// views that read an AttentionSpec (step-through, titles, exports) describe a
// model's layer truthfully: scaled dot-product, its heads and head width,
// causal or bidirectional, its positional scheme, temperature 1.
#include "attn/models/model.h"
#include "attn/spec.h"

namespace attn::ui {

attn::AttentionSpec specOfModel(const attn::models::ModelInfo& info);

}  // namespace attn::ui
