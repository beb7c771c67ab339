#pragma once
// Computes the LogitLens (logit_lens.h) of a finished forward pass from its hidden
// states (ModelRun::hiddenStates, as HF's output_hidden_states: the embeddings'
// output, then each layer's). For the causal families hiddenStates[L] is already
// after the final norm (it is ModelRun::finalHidden), so only rows 0..L-1 go through
// ln_f / RMSNorm before the lm_head; BERT-style rows are the post-LayerNorm layer
// outputs the masked-LM head reads as they are. Model::run calls it for
// RunOptions::logitLens.
#include <string>

#include "attn/models/lens/logit_lens.h"
#include "attn/models/model.h"
#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"

namespace attn::models {

/// `run` must hold the L + 1 hidden states; `k` is clamped to [1, vocab]. The
/// [rows, vocab] logits are formed a block of rows at a time (no [L+1, N, vocab]
/// array). Errors name `source`: no hidden states, a BERT-style checkpoint without
/// its masked-LM head, "cancelled" when `progress` returns false.
Result<LogitLens> computeLogitLens(const ModelConfig& config, const ModelWeights& weights,
                                   const ModelRun& run, int k, const std::string& source,
                                   const ProgressFn& progress = {});

}  // namespace attn::models
