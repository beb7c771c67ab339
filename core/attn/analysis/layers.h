#pragma once
// How attention composes through layers: rollout and flow (Abnar & Zuidema
// 2020, "Quantifying Attention Flow in Transformers", section 3).
#include <vector>

#include "attn/status.h"
#include "attn/tensor.h"

namespace attn {

/// Precomputed self-attention weights indexed [layer][head], each N x N.
using LayeredWeights = std::vector<std::vector<Mat>>;

/// One layer's attention graph with the residual connection folded in:
/// A' = 0.5 * mean_h A_h + 0.5 * I, rows renormalized to sum 1 (Abnar &
/// Zuidema 2020, section 3: "A = 0.5 W_att + 0.5 I"). A row with no mass
/// (fully masked) becomes the identity row.
Mat residualAttention(const std::vector<Mat>& heads);

/// Attention rollout: R_1 = A'_1, R_l = A'_l R_{l-1}; returns R_1 .. R_L.
/// R_l(i, j) is how much of input token j reaches token i after layer l;
/// every row sums to 1. Errors if layers or heads are missing or not all N x N.
Result<std::vector<Mat>> attentionRollout(const LayeredWeights& layers);

/// The largest input that attentionFlow accepts: L * N^4 <= this (about
/// N = 32 with 16 layers). One max-flow per (output, input) token pair over a
/// graph of L * N^2 edges; larger inputs take seconds to minutes.
inline constexpr double kMaxAttentionFlowWork = 1.7e7;

/// Attention flow: F(i, j) = max-flow from input token j (below layer 1) to
/// token i after layer L in the layered graph whose edge (l-1, j) -> (l, i)
/// has capacity A'_l(i, j); each row then divided by its sum, as in the
/// authors' code. Exact (Dinic's algorithm in double precision). For one
/// layer it equals the rollout. Errors past kMaxAttentionFlowWork.
Result<Mat> attentionFlow(const LayeredWeights& layers);

}  // namespace attn
