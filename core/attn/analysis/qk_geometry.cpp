#include "attn/analysis/qk_geometry.h"

#include <fmt/format.h>

#include <Eigen/SVD>
#include <algorithm>
#include <numeric>

namespace attn {

Result<QkGeometry> qkGeometry(const Mat& q, const Mat& k) {
  if (q.rows() == 0 || k.rows() == 0) return Error{"query-key geometry: no queries or no keys"};
  if (q.cols() != k.cols())
    return Error{fmt::format("query-key geometry: queries have width {} but keys {} (the head must score q.k)",
                             q.cols(), k.cols())};
  if (q.cols() < 1) return Error{"query-key geometry: the head has width 0"};
  if (!q.allFinite() || !k.allFinite()) return Error{"query-key geometry: q or k holds a non-finite value"};
  QkGeometry g;
  g.numQueries = static_cast<int>(q.rows());
  g.numKeys = static_cast<int>(k.rows());
  using MatD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  MatD qd = q.cast<double>(), kd = k.cast<double>();
  const Eigen::RowVectorXd mq = qd.colwise().mean(), mk = kd.colwise().mean();
  kd.rowwise() += mq - mk;  // step 1
  const double nq = qd.rowwise().norm().mean(), nk = kd.rowwise().norm().mean();
  g.scale = nq > 0 && nk > 0 ? std::sqrt(nk / nq) : 1.0;  // step 2
  qd *= g.scale;
  kd /= g.scale;
  g.normalizedQ = qd.cast<float>();
  g.normalizedK = kd.cast<float>();

  Eigen::MatrixXd all(qd.rows() + kd.rows(), qd.cols());
  all << qd, kd;
  const Eigen::RowVectorXd center = all.colwise().mean();
  all.rowwise() -= center;
  g.center = center.cast<float>();
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(all, Eigen::ComputeThinV);
  const Eigen::VectorXd sv = svd.singularValues();
  const double total = sv.squaredNorm();
  MatD comps = MatD::Zero(all.cols(), 2);
  for (int c = 0; c < 2 && c < sv.size(); ++c) {
    Eigen::VectorXd v = svd.matrixV().col(c);
    Eigen::Index arg = 0;
    v.cwiseAbs().maxCoeff(&arg);
    if (v(arg) < 0) v = -v;
    comps.col(c) = v;
    g.explained[c] = total > 0 ? sv(c) * sv(c) / total : 0.0;
  }
  g.components = comps.cast<float>();
  g.points = (all * comps).cast<float>();
  return g;
}

std::vector<int> topKeys(const Eigen::Ref<const Eigen::RowVectorXf>& w, int k) {
  std::vector<int> idx(static_cast<size_t>(w.size()));
  std::iota(idx.begin(), idx.end(), 0);
  const int n = std::clamp(k, 0, static_cast<int>(idx.size()));
  std::partial_sort(idx.begin(), idx.begin() + n, idx.end(), [&](int a, int b) {
    return w(a) > w(b) || (w(a) == w(b) && a < b);
  });
  idx.resize(static_cast<size_t>(n));
  return idx;
}

}  // namespace attn
