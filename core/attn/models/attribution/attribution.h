#pragma once
// Computes Contributions (contributions.h) from a finished forward pass: the layer
// inputs (ModelRun::hiddenStates), every head's weights and values (with b_V, one
// per query head under grouped-query attention) and the weights of W_O and of the
// post-LN families' norm. Model::run calls it for RunOptions::contributions.
#include <string>

#include "attn/models/attribution/contributions.h"
#include "attn/models/model.h"
#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"

namespace attn::models {

/// `run` must hold every layer with its heads' v and the hidden states; errors name
/// `source` (missing parts, "cancelled" when `progress` returns false).
Result<Contributions> computeContributions(const ModelConfig& config, const ModelWeights& weights,
                                           const ModelRun& run, const std::string& source,
                                           const ProgressFn& progress = {});

}  // namespace attn::models
