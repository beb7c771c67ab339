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

/// Rollout one layer at a time: add() takes the next layer's A' (residualAttention) and steps
/// R_l = A'_l R_{l-1} (R_1 = A'_1); current() is R_l. Holds three N x N double matrices (R, the
/// next R and A'), reused from layer to layer, not every layer's.
class RunningRollout {
 public:
  /// Errors if A' is not square or not the size of the layers before it.
  Status add(const Mat& residual);
  /// The same with A' formed from the layer's sum over its `heads` maps (N x N), as
  /// residualAttention forms it from the maps themselves (in double, from the sum): for a pass
  /// that keeps no head's map (the streamed forward adds each softmax row into the sum).
  Status addHeadSum(const Mat& headSum, int heads);
  int layers() const { return layers_; }
  Mat current() const;

 private:
  Status check(const Mat& m) const;
  void step(bool aLower);  // R from a_ (aLower: a_ has no weight above its diagonal)

  Eigen::MatrixXd r_, next_;
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> a_;  // filled a row at a time
  bool lower_ = true;  // every layer so far causal: the rollout is lower triangular too
  int layers_ = 0;
};

/// Attention rollout: R_1 = A'_1, R_l = A'_l R_{l-1}; returns R_1 .. R_L.
/// R_l(i, j) is how much of input token j reaches token i after layer l;
/// every row sums to 1. Errors if layers or heads are missing or not all N x N.
Result<std::vector<Mat>> attentionRollout(const LayeredWeights& layers);

/// The largest input that attentionFlow accepts: L * N^4 <= this (about
/// N = 32 with 16 layers). One max-flow per (output, input) token pair over a
/// graph of L * N^2 edges; larger inputs take seconds to minutes.
inline constexpr double kMaxAttentionFlowWork = 1.7e7;

/// Whether attentionFlow takes `layers` layers of n tokens: the error it would give, or ok.
Status attentionFlowFits(int layers, int n);

/// Attention flow: F(i, j) = max-flow from input token j (below layer 1) to
/// token i after layer L in the layered graph whose edge (l-1, j) -> (l, i)
/// has capacity A'_l(i, j); each row then divided by its sum, as in the
/// authors' code. Exact (Dinic's algorithm in double precision). For one
/// layer it equals the rollout. Errors past kMaxAttentionFlowWork.
Result<Mat> attentionFlow(const LayeredWeights& layers);

}  // namespace attn
