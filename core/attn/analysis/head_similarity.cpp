#include "attn/analysis/head_similarity.h"

#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>

namespace attn {

namespace {

// Vectorized JS of two rows, in nats; p and q are clamped at 0 and rescaled
// to sum 1. Zero entries contribute nothing (0 log 0 = 0).
double jsNats(const Eigen::Ref<const Eigen::RowVectorXf>& pRow, const Eigen::Ref<const Eigen::RowVectorXf>& qRow) {
  const Eigen::ArrayXf p0 = pRow.transpose().array().max(0.0f), q0 = qRow.transpose().array().max(0.0f);
  const float sp = p0.sum(), sq = q0.sum();
  if (!(sp > 0.0f) || !(sq > 0.0f)) return 0.0;
  const Eigen::ArrayXf p = p0 / sp, q = q0 / sq;
  const Eigen::ArrayXf m = 0.5f * (p + q);
  const double kp = (p > 0.0f).select(p * (p / m).log(), 0.0f).cast<double>().sum();
  const double kq = (q > 0.0f).select(q * (q / m).log(), 0.0f).cast<double>().sum();
  return std::max(0.0, 0.5 * (kp + kq));  // rounding can leave -1e-9
}

}  // namespace

double jensenShannon(const Eigen::Ref<const Eigen::RowVectorXf>& p, const Eigen::Ref<const Eigen::RowVectorXf>& q,
                     EntropyUnit unit) {
  assert(p.size() == q.size());
  const double js = jsNats(p, q);
  return unit == EntropyUnit::Bits ? js / std::numbers::ln2 : js;
}

double headJensenShannon(const Eigen::Ref<const Mat>& a, const Eigen::Ref<const Mat>& b, EntropyUnit unit) {
  assert(a.rows() == b.rows() && a.cols() == b.cols());
  double sum = 0.0;
  int rows = 0;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    if (!(a.row(i).maxCoeff() > 0.0f) || !(b.row(i).maxCoeff() > 0.0f)) continue;
    sum += jsNats(a.row(i), b.row(i));
    ++rows;
  }
  const double js = rows > 0 ? sum / rows : 0.0;
  return unit == EntropyUnit::Bits ? js / std::numbers::ln2 : js;
}

Mat headSimilarityMatrix(const std::vector<const Mat*>& heads, EntropyUnit unit) {
  const auto n = static_cast<Eigen::Index>(heads.size());
  Mat d = Mat::Zero(n, n);
  for (Eigen::Index a = 0; a < n; ++a)
    for (Eigen::Index b = a + 1; b < n; ++b) {
      const Mat& ha = *heads[static_cast<size_t>(a)];
      const Mat& hb = *heads[static_cast<size_t>(b)];
      if (ha.size() == 0 || ha.rows() != hb.rows() || ha.cols() != hb.cols()) continue;
      d(a, b) = d(b, a) = static_cast<float>(headJensenShannon(ha, hb, unit));
    }
  return d;
}

Mat headSimilarityMatrix(const std::vector<Mat>& heads, EntropyUnit unit) {
  std::vector<const Mat*> p;
  for (const Mat& m : heads) p.push_back(&m);
  return headSimilarityMatrix(p, unit);
}

std::vector<int> similarityOrder(const Mat& divergence) {
  const auto n = static_cast<size_t>(divergence.rows());
  std::vector<std::vector<int>> clusters(n);
  for (size_t i = 0; i < n; ++i) clusters[i] = {static_cast<int>(i)};
  // Average-linkage distances between live clusters (Lance-Williams update).
  Eigen::MatrixXd dist = divergence.cast<double>();
  std::vector<bool> live(n, true);
  for (size_t merges = 0; merges + 1 < n; ++merges) {
    size_t ba = 0, bb = 0;
    double best = std::numeric_limits<double>::infinity();
    for (size_t a = 0; a < n; ++a) {
      if (!live[a]) continue;
      for (size_t b = a + 1; b < n; ++b)
        if (live[b] && dist(a, b) < best) {
          best = dist(a, b);
          ba = a;
          bb = b;
        }
    }
    const double na = static_cast<double>(clusters[ba].size()), nb = static_cast<double>(clusters[bb].size());
    for (size_t c = 0; c < n; ++c)
      if (live[c] && c != ba && c != bb) dist(ba, c) = dist(c, ba) = (na * dist(ba, c) + nb * dist(bb, c)) / (na + nb);
    clusters[ba].insert(clusters[ba].end(), clusters[bb].begin(), clusters[bb].end());
    clusters[bb].clear();
    live[bb] = false;
  }
  return n == 0 ? std::vector<int>{} : clusters[0];
}

}  // namespace attn
