#pragma once
// How alike two heads attend: Jensen-Shannon divergence of their rows.
#include <vector>

#include "attn/analysis/entropy.h"

namespace attn {

/// Jensen-Shannon divergence JS(P, Q) = 1/2 KL(P || M) + 1/2 KL(Q || M),
/// M = (P + Q) / 2 (Lin 1991), of two rows taken as distributions. Symmetric,
/// 0 iff P = Q, at most log 2 (1 bit). Clark et al. 2019 (section 6) use it to
/// compare heads.
double jensenShannon(const Eigen::Ref<const Eigen::RowVectorXf>& p,
                     const Eigen::Ref<const Eigen::RowVectorXf>& q, EntropyUnit unit = EntropyUnit::Nats);

/// Mean over rows of JS(a_i, b_i) for two heads of equal shape. Rows where
/// either head has no mass (fully masked) are skipped; none left gives 0.
double headJensenShannon(const Eigen::Ref<const Mat>& a, const Eigen::Ref<const Mat>& b,
                         EntropyUnit unit = EntropyUnit::Nats);

/// The H x H matrix of headJensenShannon between every pair of heads:
/// symmetric, zero diagonal. Heads must share one shape (asserted).
Mat headSimilarityMatrix(const std::vector<Mat>& heads, EntropyUnit unit = EntropyUnit::Nats);
/// The same over heads held elsewhere (no copies); empty or mis-shaped heads give 0.
Mat headSimilarityMatrix(const std::vector<const Mat*>& heads, EntropyUnit unit = EntropyUnit::Nats);

/// An order of the heads that puts similar heads next to each other: the leaf
/// order of average-linkage agglomerative clustering (UPGMA) on the divergence
/// matrix, merging the closest pair first (ties: lowest head indices) and
/// keeping the earlier cluster on the left.
std::vector<int> similarityOrder(const Mat& divergence);

}  // namespace attn
