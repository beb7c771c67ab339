#pragma once
// The mean next-token cross-entropy of a causal model computed straight from the
// final hidden states (head importance): the lm_head product a panel of
// vocabulary rows at a time, each panel folded into a running log-sum-exp per row,
// so no [N, vocab] logits are stored or read back.
#include <vector>

#include "attn/models/model_weights.h"
#include "attn/models/nn_ops.h"

namespace attn::models {

/// Mean over k of logsumexp(h[rows[k]] W^T) - h[rows[k]] . W[targets[k]], W [vocab, d]
/// (f32 or BF16). Panels are shared among the OpenMP threads when called outside a
/// parallel region. `rows` must be non-empty and as long as `targets`.
double fusedNextTokenLoss(const ConstMatRef& hidden, const WeightTensor& w, const std::vector<int>& rows,
                          const std::vector<int>& targets);

}  // namespace attn::models
