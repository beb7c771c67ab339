#pragma once
// Attention weights computed elsewhere (a model's output_attentions, an
// earlier run), viewed and analysed as they are: no q/k/v, no logits.
#include <string>
#include <vector>

#include "attn/engine.h"
#include "attn/tensor.h"

namespace attn {

/// What one head's precomputed weights were computed from, when the producer kept it (an
/// encoder-decoder run handed to the main views): softmax(q k^T * scale + logitBias), the
/// scale 1/sqrt(d_k) or 1 (PrecomputedAttention::scaledScores), so the step-through can walk it.
struct PrecomputedHeadInputs {
  Mat q, k, v;    // [Nq, d_k], [Nk, d_k], [Nk, d_v]
  Mat logitBias;  // [Nq, Nk] added to the scaled logits (T5's relative positions); empty: none
};

struct PrecomputedAttention {
  std::vector<std::vector<Mat>> layers;  // [layer][head], each [Nq, Nk]
  /// Optional, [layer][head] as `layers`: each head's q, k, v (empty: weights only).
  std::vector<std::vector<PrecomputedHeadInputs>> inputs;
  bool scaledScores = true;  // inputs' logits: q . k / sqrt(d_k) (scaled dot), or q . k (dot, T5)

  bool empty() const { return layers.empty(); }
  int numLayers() const { return static_cast<int>(layers.size()); }
  int numHeads() const { return layers.empty() ? 0 : static_cast<int>(layers[0].size()); }
  int nq() const { return numHeads() == 0 ? 0 : static_cast<int>(layers[0][0].rows()); }
  int nk() const { return numHeads() == 0 ? 0 : static_cast<int>(layers[0][0].cols()); }

  /// From [L, H, Nq, Nk], [H, Nq, Nk] or [Nq, Nk] (one layer, one head).
  static PrecomputedAttention fromTensor(const Tensor& t);
};

/// An engine-shaped result for one layer (0-based) of precomputed weights, so
/// the heatmap, metrics and exporters treat it like a computed one: weights and
/// row entropy are filled, q/k/v (and logitBias) from `inputs` when it has them, logits empty.
/// Tokens default to indices, as the engine does.
AttentionResult resultFromPrecomputed(const PrecomputedAttention& attn, int layer,
                                      std::vector<std::string> queryTokens,
                                      std::vector<std::string> keyTokens);

}  // namespace attn
