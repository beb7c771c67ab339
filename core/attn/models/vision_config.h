#pragma once
// config.json of the vision transformers beyond ViT / DeiT: DINOv2 (Oquab et al. 2023), with
// registers (Darcet et al. 2024), and CLIP's image tower (Radford et al. 2021), read as
// transformers' Dinov2Config / Dinov2WithRegistersConfig / CLIPVisionConfig.
#include "attn/io/json_fields.h"
#include "attn/models/model_config.h"

namespace attn::models {

/// The sizes every vision transformer shares, checked as ViTConfig's are: heads divide the width
/// d, patches tile the image, RGB, at most 16384 patches in the checkpoint's grid.
Status checkVisionGrid(const std::string& src, int64_t d, int64_t heads, int64_t image, int64_t patch,
                       int64_t channels);

/// model_type dinov2 / dinov2_with_registers: layer scale, optional SwiGLU FFN and register
/// tokens; the position table's grid is image_size / patch_size, interpolated to the image's.
Status readDinov2Config(const JsonFields& r, ModelConfig& c);
/// model_type clip_vision_model, or clip (its `vision_config`; the text tower is not run).
Status readClipVisionConfig(const JsonFields& r, ModelConfig& c);

}  // namespace attn::models
