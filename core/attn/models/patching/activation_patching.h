#pragma once
// Activation patching (Vig et al. 2020; Meng et al. 2022, "Locating and Editing
// Factual Associations in GPT"; Wang et al. 2023, "Interpretability in the
// Wild", section 3): run the model on a corrupt text with one activation taken
// from the run on the clean text, and measure how much of the clean run's logit
// difference (target - foil at the last position) that one activation brings back.
// 0: nothing (the corrupt run's difference), 1: all of it (the clean run's).
#include <string>

#include "attn/models/model.h"
#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"

namespace attn::models {

struct PatchingOptions {
  bool residual = true;  // the residual stream entering each layer, one position at a time
  bool heads = true;     // each head's output (every position) before the output projection
  bool mlp = true;       // each layer's MLP output, one position at a time
};

struct PatchingResult {
  Mat residual;  // [layers, N]: the residual stream entering layer l at position p from the clean run
  Mat heads;     // [layers, heads]
  Mat mlp;       // [layers, N]
  double cleanDiff = 0, corruptDiff = 0;  // logit(target) - logit(foil) at the last position
};

/// Patches every site PatchingOptions asks for. Errors, naming `source`: a model that is not a
/// causal language model, texts of different lengths, target or foil outside the vocabulary,
/// the two runs' differences equal (nothing to recover), cancelled.
Result<PatchingResult> activationPatching(const ModelConfig& config, const ModelWeights& weights,
                                          const Encoding& clean, const Encoding& corrupt, int target,
                                          int foil, const PatchingOptions& options, const std::string& source,
                                          const ProgressFn& progress = {});

}  // namespace attn::models
