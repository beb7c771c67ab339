#include "attn/models/vision_config.h"

#include <fmt/format.h>

namespace attn::models {
namespace {

#define ATTN_VISION_TRY(var, expr)      \
  auto var##_r = (expr);                \
  if (!var##_r) return var##_r.error(); \
  auto var = std::move(*var##_r)

constexpr int64_t kMaxVisionLayers = 1024, kMaxVisionWidth = int64_t{1} << 17;

/// The sizes every vision transformer shares, checked as ViTConfig's are: heads divide the
/// width, patches tile the image, RGB, at most 16384 patches in the checkpoint's grid.
Status readVisionShape(const JsonFields& r, ModelConfig& c, int defaultPatch, double defaultEps) {
  ATTN_VISION_TRY(layers, r.integer("num_hidden_layers", 12, 1, kMaxVisionLayers));
  ATTN_VISION_TRY(heads, r.integer("num_attention_heads", 12, 1, kMaxVisionWidth));
  ATTN_VISION_TRY(d, r.integer("hidden_size", 768, 1, kMaxVisionWidth));
  ATTN_VISION_TRY(eps, r.number("layer_norm_eps", defaultEps, 0, 1));
  ATTN_VISION_TRY(image, r.integer("image_size", 224, 1, 8192));
  ATTN_VISION_TRY(patch, r.integer("patch_size", defaultPatch, 1, 8192));
  ATTN_VISION_TRY(channels, r.integer("num_channels", 3, 1, 3));
  if (auto st = checkVisionGrid(r.src, d, heads, image, patch, channels); !st) return st;
  const int64_t grid = image / patch;
  c.family = Family::Vit;
  c.layers = layers, c.heads = heads, c.kvHeads = heads, c.dModel = d, c.headDim = d / heads;
  c.normEps = eps, c.imageSize = image, c.patchSize = patch, c.numChannels = channels;
  c.prefixTokens = 1;
  c.maxPositions = static_cast<int>(grid * grid) + 1;  // rows of the position table
  c.outputBias = c.mlpBias = true;
  c.vocabSize = 0, c.typeVocabSize = 0;
  return okStatus();
}

}  // namespace

Status checkVisionGrid(const std::string& src, int64_t d, int64_t heads, int64_t image, int64_t patch,
                       int64_t channels) {
  if (d % heads != 0)
    return Error{
        fmt::format("{}: hidden_size {} is not a multiple of num_attention_heads {}", src, d, heads)};
  if (image % patch != 0)
    return Error{fmt::format("{}: image_size {} is not a multiple of patch_size {}", src, image, patch)};
  if (channels != 3)
    return Error{fmt::format("{}: num_channels {} is not supported (RGB images: 3)", src, channels)};
  const int64_t grid = image / patch;
  if (grid * grid > 16384)
    return Error{fmt::format("{}: image_size {} / patch_size {} gives {} patches, at most 16384", src, image,
                             patch, grid * grid)};
  return okStatus();
}

Status readDinov2Config(const JsonFields& r, ModelConfig& c) {
  if (auto st = readVisionShape(r, c, 14, 1e-6); !st) return st;
  ATTN_VISION_TRY(ratio, r.number("mlp_ratio", 4.0, 1e-3, 64));
  ATTN_VISION_TRY(act, r.string("hidden_act", "gelu"));
  ATTN_VISION_TRY(a, parseActivation(act, "hidden_act", r.src));
  ATTN_VISION_TRY(qkvBias, r.boolean("qkv_bias", true));
  ATTN_VISION_TRY(swiglu, r.boolean("use_swiglu_ffn", false));
  const bool registers = c.modelType == "dinov2_with_registers";
  ATTN_VISION_TRY(regs, r.integer("num_register_tokens", registers ? 4 : 0, 0, 256));
  // Dinov2MLP: int(hidden_size * mlp_ratio); Dinov2SwiGLUFFN rounds two thirds of it up to 8.
  int64_t hidden = static_cast<int64_t>(static_cast<double>(c.dModel) * ratio);
  if (swiglu) hidden = (static_cast<int64_t>(static_cast<double>(hidden) * 2 / 3) + 7) / 8 * 8;
  if (hidden < 1 || hidden > 8 * kMaxVisionWidth)
    return Error{fmt::format("{}: mlp_ratio {} gives an MLP of {} units", r.src, ratio, hidden)};
  c.visionArch = VisionArch::Dinov2;
  c.intermediate = static_cast<int>(hidden);
  c.activation = swiglu ? Activation::Silu : a;  // SwiGLU: silu(x1) * x2, whatever hidden_act says
  c.swiglu = swiglu;
  c.attentionBias = qkvBias;
  c.registerTokens = registers ? regs : 0;
  c.prefixTokens = 1 + c.registerTokens;
  c.interpolatePositions = true;
  c.maxPositions = 0;  // any grid: the table (image_size / patch_size square) is interpolated
  c.labels.clear();
  return okStatus();
}

Status readClipVisionConfig(const JsonFields& top, ModelConfig& c) {
  const nlohmann::json* vc = &top.doc;
  if (c.modelType == "clip") {
    vc = top.find("vision_config");
    if (!vc) return Error{top.src + ": a clip config.json without 'vision_config': no image tower to run"};
    if (!vc->is_object()) return Error{top.src + ": 'vision_config' must be an object"};
    c.visionTowerOnly = true;
  }
  const JsonFields r{*vc, top.src};
  if (auto st = readVisionShape(r, c, 32, 1e-5); !st) return st;
  ATTN_VISION_TRY(inter, r.integer("intermediate_size", 3072, 1, 4 * kMaxVisionWidth));
  ATTN_VISION_TRY(act, r.string("hidden_act", "quick_gelu"));
  ATTN_VISION_TRY(a,
                  parseActivation(act, c.visionTowerOnly ? "vision_config.hidden_act" : "hidden_act", r.src));
  c.visionArch = VisionArch::ClipVision;
  c.intermediate = inter, c.activation = a;
  c.attentionBias = true;
  c.labels.clear();
  return okStatus();
}

#undef ATTN_VISION_TRY

}  // namespace attn::models
