#pragma once
// The state a reference implementation needs to recompute a training run's
// first step: the initial parameters, the first batch, the config that defines
// the model, and the loss and gradients the engine computed on it. Written as
// one .npz (float32 arrays), read by tests/scripts/check_train_dump.py:
//   <param name>        every parameter, [rows, cols], names as ModelParams::forEach
//   grad.<param name>   the gradient of `loss` w.r.t. it (before clipping)
//   inputs, targets     [B, N] token ids (targets: -1 = ignored)
//   loss, cross_entropy [1]
//   config.<key>        [1] each: seq_len, vocab, output_vocab, d_model, d_k, hidden,
//                       heads, layers, batch, mechanism (0 dot, 1 scaled_dot, 2 general,
//                       3 additive), causal (as applied: 1 for induction), cross,
//                       residual, mlp_hidden, temperature, entropy_weight, seed
//   config.task         the task name (a string array)
#include <string>

#include "attn/status.h"
#include "attn/train/trainer.h"

namespace attn::train {

/// Writes `trainer`'s newest state (step 0 right after Trainer::create) to
/// `path` atomically: an error names the file, and no partial file is left.
Status writeInitialState(const Trainer& trainer, const std::string& path);

}  // namespace attn::train
