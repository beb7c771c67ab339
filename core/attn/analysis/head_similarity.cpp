#include "attn/analysis/head_similarity.h"

#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>

namespace attn {

double jensenShannon(const Eigen::Ref<const Eigen::RowVectorXf>& p, const Eigen::Ref<const Eigen::RowVectorXf>& q,
                     EntropyUnit unit) {
  assert(p.size() == q.size());
  double sp = 0.0, sq = 0.0;
  for (Eigen::Index j = 0; j < p.size(); ++j) {
    sp += std::max(0.0f, p[j]);
    sq += std::max(0.0f, q[j]);
  }
  if (sp <= 0.0 || sq <= 0.0) return 0.0;
  double js = 0.0;
  for (Eigen::Index j = 0; j < p.size(); ++j) {
    const double pj = std::max(0.0f, p[j]) / sp, qj = std::max(0.0f, q[j]) / sq;
    const double m = 0.5 * (pj + qj);
    if (pj > 0.0) js += 0.5 * pj * std::log(pj / m);
    if (qj > 0.0) js += 0.5 * qj * std::log(qj / m);
  }
  js = std::max(0.0, js);  // rounding can leave -1e-17
  return unit == EntropyUnit::Bits ? js / std::numbers::ln2 : js;
}

double headJensenShannon(const Eigen::Ref<const Mat>& a, const Eigen::Ref<const Mat>& b, EntropyUnit unit) {
  assert(a.rows() == b.rows() && a.cols() == b.cols());
  double sum = 0.0;
  int rows = 0;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    if (!(a.row(i).maxCoeff() > 0.0f) || !(b.row(i).maxCoeff() > 0.0f)) continue;
    sum += jensenShannon(a.row(i), b.row(i), unit);
    ++rows;
  }
  return rows > 0 ? sum / rows : 0.0;
}

Mat headSimilarityMatrix(const std::vector<Mat>& heads, EntropyUnit unit) {
  const auto n = static_cast<Eigen::Index>(heads.size());
  Mat d = Mat::Zero(n, n);
  for (Eigen::Index a = 0; a < n; ++a)
    for (Eigen::Index b = a + 1; b < n; ++b) {
      const auto& ha = heads[static_cast<size_t>(a)];
      const auto& hb = heads[static_cast<size_t>(b)];
      if (ha.size() == 0 || ha.rows() != hb.rows() || ha.cols() != hb.cols()) continue;
      d(a, b) = d(b, a) = static_cast<float>(headJensenShannon(ha, hb, unit));
    }
  return d;
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
