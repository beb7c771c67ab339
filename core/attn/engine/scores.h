#pragma once
// Score functions: one head's raw attention logits s_ij = score(q_i, k_j).
// Queries and keys are rows ([Nq, dk_q], [Nk, dk_k]); every function returns
// [Nq, Nk]. A tiled path may pass row blocks (middleRows) of q and k.
#include <Eigen/Core>

#include "attn/spec.h"
#include "attn/tensor.h"

namespace attn {

using MatRef = Eigen::Ref<const Mat>;
using VecRef = Eigen::Ref<const Vec>;

/// The learned parameters of one head's score function; empty where the
/// mechanism has none (dot, scaled_dot, cosine).
struct ScoreParams {
  Mat wBilinear;  // general: [dk_q, dk_k]
  Mat wAddQ;      // additive: [dk_q, h]
  Mat wAddK;      // additive: [dk_k, h]
  Vec vAdd;       // additive: [h]
  Vec bAdd;       // additive: [h] inside the tanh; empty = no bias
};

/// Luong et al. 2015, eq. 8 "dot": q k^T.
Mat dotScores(MatRef q, MatRef k);
/// Vaswani et al. 2017, eq. 1: q k^T / sqrt(d_k).
Mat scaledDotScores(MatRef q, MatRef k);
/// Luong et al. 2015, eq. 8 "general": q W k^T with W [dk_q, dk_k].
Mat bilinearScores(MatRef q, MatRef k, MatRef w);
/// Bahdanau et al. 2015, app. A.1.2: v^T tanh(W_q^T q + W_k^T k + b); `b` may be empty.
Mat additiveScores(MatRef q, MatRef k, MatRef wq, MatRef wk, VecRef v, VecRef b);
/// Liu et al. 2022 (Swin v2), eq. 2 without the 1/tau: cos(q, k). Rows are
/// normalized as torch.nn.functional.normalize does (norm clamped at 1e-12),
/// so a zero vector scores 0 rather than NaN.
Mat cosineScores(MatRef q, MatRef k);

/// The mechanism's raw score (scaled_dot's raw score is the plain q k^T; the
/// 1/sqrt(d_k) is part of logitScale, so the step-through can show both).
Mat rawScores(Mechanism m, MatRef q, MatRef k, const ScoreParams& p);
/// Raw -> scaled logits factor: 1/sqrt(d_k) for scaled_dot, then 1/temperature.
float logitScale(Mechanism m, Eigen::Index dk, float temperature);

}  // namespace attn
