#include "attn/engine/scores.h"

#include <cassert>
#include <cmath>

namespace attn {

Mat dotScores(MatRef q, MatRef k) {
  assert(q.cols() == k.cols());
  Mat s(q.rows(), k.rows());
  s.noalias() = q * k.transpose();
  return s;
}

Mat scaledDotScores(MatRef q, MatRef k) {
  return dotScores(q, k) * (1.0f / std::sqrt(static_cast<float>(q.cols())));
}

Mat bilinearScores(MatRef q, MatRef k, MatRef w) {
  assert(w.rows() == q.cols() && w.cols() == k.cols());
  // (q W) k^T: the [Nq, dk_k] product is the cheaper association when Nk >= dk_q.
  const Mat qw = q * w;
  Mat s(q.rows(), k.rows());
  s.noalias() = qw * k.transpose();
  return s;
}

Mat additiveScores(MatRef q, MatRef k, MatRef wq, MatRef wk, VecRef v, VecRef b) {
  assert(wq.rows() == q.cols() && wk.rows() == k.cols() && wq.cols() == wk.cols());
  assert(v.size() == wq.cols() && (b.size() == 0 || b.size() == v.size()));
  // Project once ([Nq, h], [Nk, h]); the tanh is per (i, j) pair.
  Mat qh = q * wq;
  if (b.size() > 0) qh.rowwise() += b.transpose();
  const Mat kh = k * wk;
  Mat s(q.rows(), k.rows());
  Mat pre(k.rows(), wq.cols());
  for (Eigen::Index i = 0; i < q.rows(); ++i) {
    pre = kh.rowwise() + qh.row(i);
    s.row(i).noalias() = (pre.array().tanh().matrix() * v).transpose();
  }
  return s;
}

namespace {
Mat rowNormalized(MatRef m) {
  constexpr float kEps = 1e-12f;  // torch.nn.functional.normalize's default
  Mat n = m;
  for (Eigen::Index i = 0; i < n.rows(); ++i) n.row(i) /= std::max(n.row(i).norm(), kEps);
  return n;
}
}  // namespace

Mat cosineScores(MatRef q, MatRef k) {
  assert(q.cols() == k.cols());
  return dotScores(rowNormalized(q), rowNormalized(k));
}

Mat rawScores(Mechanism m, MatRef q, MatRef k, const ScoreParams& p) {
  switch (m) {
    case Mechanism::Dot:
    case Mechanism::ScaledDot: return dotScores(q, k);
    case Mechanism::General: return bilinearScores(q, k, p.wBilinear);
    case Mechanism::Additive: return additiveScores(q, k, p.wAddQ, p.wAddK, p.vAdd, p.bAdd);
    case Mechanism::Cosine: return cosineScores(q, k);
  }
  return dotScores(q, k);
}

float logitScale(Mechanism m, Eigen::Index dk, float temperature) {
  float scale = 1.0f / temperature;
  if (m == Mechanism::ScaledDot) scale /= std::sqrt(static_cast<float>(dk));
  return scale;
}

}  // namespace attn
