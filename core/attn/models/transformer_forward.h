#pragma once
// One forward pass of a GPT-2, BERT or Llama-family model over a whole
// sequence, following the Hugging Face modeling code (eager attention), with
// every layer's per-head attention kept as engine results.
#include <functional>
#include <string>

#include "attn/models/model.h"
#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"

namespace attn::models {

/// Checks `enc` against the config (length, ids, type ids) and runs the model.
/// `source` (config.json's path) names the limits in errors; `display` turns a
/// predicted id into text for ModelRun::nextTokens.
Result<ModelRun> transformerForward(const ModelConfig& config, const ModelWeights& weights, const Encoding& enc,
                                    const RunOptions& options, const std::string& source,
                                    const std::function<std::string(int)>& display, const ProgressFn& progress = {});

/// Patches a vision model with interpolated positions (DINOv2) takes at most.
constexpr int64_t kMaxImagePatches = 16384;

/// A vision model (Family::Vit) over preprocessed pixels [C, H, W]: H and W must be the
/// config's image_size, except for DINOv2 (any multiple of patch_size, at most kMaxImagePatches
/// patches: the positions are interpolated). ModelRun::encoding names the tokens "[CLS]"
/// (DeiT: "[DIST]" next; DINOv2 with registers: "[REG0]", ...) and "r{row}c{col}" for the
/// patches, row-major; ids are 0. Interventions apply; no prefix cache.
Result<ModelRun> visionForward(const ModelConfig& config, const ModelWeights& weights,
                               const vision::PixelTensor& pixels, const RunOptions& options,
                               const std::string& source, const ProgressFn& progress = {});
/// The token names of a vision model's sequence for a gridRows x gridCols patch grid.
Encoding visionEncoding(const ModelConfig& config, int gridRows, int gridCols);
/// The faults of an encoding the model cannot run, one line naming `source`: no tokens, more
/// than max_position_embeddings, ids outside the vocabulary, type ids or mask entries that do not fit.
Status checkModelEncoding(const ModelConfig& config, const Encoding& enc, const std::string& source);

/// The mask a model applies to a sequence: causal for GPT-2 / Llama (with Mistral's
/// sliding window), padding keys (attention 0) for every family; bound to n tokens.
Result<Mask> modelMask(const ModelConfig& config, const Encoding& enc);

}  // namespace attn::models
