#pragma once
// The masked-language-model head of BERT-style checkpoints:
// BertForMaskedLM's cls.predictions (BertLMPredictionHead) and
// RobertaForMaskedLM's lm_head. For each row h of the last layer's output:
//   t = LayerNorm(act(h W_t^T + b_t)),  logits = t E^T + bias,
// with E the word embedding (tied, as transformers does unless config.json says
// tie_word_embeddings false, then the stored decoder weight).
#include <vector>

#include "attn/models/model.h"
#include "attn/models/model_weights.h"
#include "attn/models/nn_ops.h"

namespace attn::models {

/// logits [rows, vocab] of the head on `hidden` [rows, d]; `eps` is the model's layer_norm_eps.
void maskedLmLogits(const ConstMatRef& hidden, const MaskedLmHead& head, double eps, Mat& logits);

/// Positions i with ids[i] == maskId (none when maskId < 0).
std::vector<int> maskPositions(const std::vector<int>& ids, int maskId);

}  // namespace attn::models
