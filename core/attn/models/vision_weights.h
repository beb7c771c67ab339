#pragma once
// The tensors of DINOv2 (Dinov2Model, Dinov2WithRegistersModel) and CLIP vision
// (CLIPVisionModel, or the vision_model of a CLIPModel) checkpoints, by their Hugging Face names.
#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"
#include "attn/models/weight_loader.h"

namespace attn::models {

/// Dinov2Model (bare, or under "dinov2." in Dinov2ForImageClassification; the classifier is not read).
Status queueDinov2(WeightLoader& l, const ModelConfig& c, ModelWeights& w);
/// CLIPVisionModel / CLIPModel: "vision_model." (or bare) embeddings, encoder, the two layernorms.
Status queueClipVision(WeightLoader& l, const ModelConfig& c, ModelWeights& w);
/// After materialize: each SwiGLU layer's weights_in [2 hidden, d] (queued into `gate`) split
/// into gate (the first half, through SiLU) and up (the second), as Dinov2SwiGLUFFN's chunk(2).
void splitSwigluWeights(const ModelConfig& c, ModelWeights& w);

}  // namespace attn::models
