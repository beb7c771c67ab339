#pragma once
// Query-key geometry of one head (AttentionViz, Yeh et al. 2023, sec. 4.1):
// queries and keys projected together to 2-D by PCA, after the paper's
// normalization, which leaves every attention weight unchanged:
//  1. translate the keys so their mean equals the queries' mean
//     (k' = k - mean(k) + mean(q): each logit q.k' changes by q.(mean(q) - mean(k)),
//     the same for every key of a row, so softmax is unchanged);
//  2. scale queries by c and keys by 1/c, c = sqrt(mean|k'| / mean|q|), so their
//     average norms match (q.k' unchanged).
// A query then sits near the keys it attends to more (large dot product).
#include <vector>

#include "attn/status.h"
#include "attn/tensor.h"

namespace attn {

struct QkGeometry {
  Mat points;        // [Nq + Nk, 2]: the queries' rows first, then the keys'
  int numQueries = 0, numKeys = 0;
  Mat components;    // [d, 2] principal directions (unit columns; sign: largest |entry| positive)
  Eigen::RowVectorXf center;  // the joint mean removed before projecting [d]
  double scale = 1;  // c (queries times c, keys divided by c)
  double explained[2] = {0, 0};  // fraction of the joint variance along each component
  Mat normalizedQ, normalizedK;  // after steps 1 and 2 (before centering)
};

/// PCA of one head's q [Nq, d] and k [Nk, d] (d the same). Errors say what is wrong.
Result<QkGeometry> qkGeometry(const Mat& q, const Mat& k);

/// The k largest entries of a weight row, largest first (ties: lower index first).
std::vector<int> topKeys(const Eigen::Ref<const Eigen::RowVectorXf>& weights, int k);

}  // namespace attn
