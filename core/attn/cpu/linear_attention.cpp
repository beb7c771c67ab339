#include "attn/cpu/linear_attention.h"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>

#include "attn/engine/random.h"

namespace attn {

Mat orthogonalRandomFeatures(int m, int d, uint64_t seed) {
  SeededRng rng(seed);
  Mat w(m, d);
  for (int row = 0; row < m; row += d) {
    Eigen::MatrixXd g(d, d);
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j) g(i, j) = rng.normal();
    const Eigen::MatrixXd q = Eigen::HouseholderQR<Eigen::MatrixXd>(g).householderQ();
    for (int i = 0; i < d && row + i < m; ++i) {
      double norm2 = 0;  // chi(d) norm of an independent Gaussian vector
      for (int j = 0; j < d; ++j) {
        const double z = rng.normal();
        norm2 += z * z;
      }
      w.row(row + i) = (q.col(i) * std::sqrt(norm2)).cast<float>().transpose();
    }
  }
  return w;
}

Mat favorFeatures(const Mat& x, const Mat& w, bool perRowStabilizer) {
  const int m = static_cast<int>(w.rows());
  Eigen::MatrixXd proj = x.cast<double>() * w.cast<double>().transpose();  // [N, m]
  const Eigen::VectorXd halfNorm = x.cast<double>().rowwise().squaredNorm() * 0.5;
  proj.colwise() -= halfNorm;
  if (perRowStabilizer) {
    for (Eigen::Index i = 0; i < proj.rows(); ++i) proj.row(i).array() -= proj.row(i).maxCoeff();
  } else if (proj.size() > 0) {
    proj.array() -= proj.maxCoeff();
  }
  return (proj.array().exp() / std::sqrt(static_cast<double>(m))).cast<float>().matrix();
}

Mat eluFeatures(const Mat& x) {
  return x.unaryExpr([](float a) { return a > 0.0f ? a + 1.0f : std::exp(a); });
}

Mat linearAttentionOutput(const Mat& phiQ, const Mat& phiK, const Mat& v, bool causal) {
  const Eigen::Index nq = phiQ.rows(), nk = phiK.rows(), m = phiQ.cols(), dv = v.cols();
  Mat out = Mat::Zero(nq, dv);
  if (!causal) {
    const Eigen::MatrixXd kv = phiK.cast<double>().transpose() * v.cast<double>();  // [m, dv]
    const Eigen::VectorXd z = phiK.cast<double>().colwise().sum().transpose();       // [m]
    for (Eigen::Index i = 0; i < nq; ++i) {
      const Eigen::RowVectorXd q = phiQ.row(i).cast<double>();
      const double denom = q.dot(z);
      if (denom > 0) out.row(i) = (q * kv / denom).cast<float>();
    }
    return out;
  }
  // Causal (eq. 8-9): running S = sum_{j<=i} phi(k_j) v_j^T and z = sum_{j<=i} phi(k_j).
  Eigen::MatrixXd s = Eigen::MatrixXd::Zero(m, dv);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(m);
  Eigen::Index next = 0;
  for (Eigen::Index i = 0; i < nq; ++i) {
    for (; next <= i && next < nk; ++next) {
      const Eigen::VectorXd kj = phiK.row(next).cast<double>().transpose();
      s += kj * v.row(next).cast<double>();
      z += kj;
    }
    const Eigen::RowVectorXd q = phiQ.row(i).cast<double>();
    const double denom = q.dot(z);
    if (denom > 0) out.row(i) = (q * s / denom).cast<float>();
  }
  return out;
}

Mat linearAttentionWeights(const Mat& phiQ, const Mat& phiK, bool causal) {
  Mat a = phiQ * phiK.transpose();
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    if (causal && i + 1 < a.cols()) a.row(i).tail(a.cols() - i - 1).setZero();
    const double sum = a.row(i).cast<double>().sum();
    if (sum > 0) a.row(i) /= static_cast<float>(sum);
    else a.row(i).setZero();
  }
  return a;
}

}  // namespace attn
