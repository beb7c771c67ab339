#include "attn/teaching/compare.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "attn/analysis/approximation.h"

namespace attn {
namespace {

// sum_j p_j log(p_j / m_j) over p_j > 0 (0 log 0 = 0).
double klToMixture(const Eigen::Ref<const Eigen::RowVectorXf>& p, const Eigen::Ref<const Eigen::RowVectorXf>& q) {
  double s = 0.0;
  for (Eigen::Index j = 0; j < p.size(); ++j) {
    if (p(j) <= 0.0f) continue;
    const double m = 0.5 * (static_cast<double>(p(j)) + q(j));
    s += p(j) * std::log(p(j) / m);
  }
  return s;
}

}  // namespace

Result<CompareSummary> compareHeads(const HeadResult& a, const HeadResult& b) {
  if (a.weights.rows() != b.weights.rows() || a.weights.cols() != b.weights.cols())
    return Error{fmt::format("compare: weights of A [{}, {}] and B [{}, {}] differ in shape", a.weights.rows(),
                             a.weights.cols(), b.weights.rows(), b.weights.cols())};
  if (a.weights.size() == 0) return Error{"compare: no weights to compare"};
  CompareSummary s;
  s.difference = b.weights - a.weights;
  const auto absDiff = s.difference.cwiseAbs();
  s.maxAbsDiff = absDiff.maxCoeff();
  s.meanAbsDiff = absDiff.mean();
  s.entropyMeanA = a.entropy.size() ? a.entropy.mean() : 0.0f;
  s.entropyMeanB = b.entropy.size() ? b.entropy.mean() : 0.0f;
  int agree = 0;
  double js = 0.0;
  const auto rows = a.weights.rows();
  for (Eigen::Index i = 0; i < rows; ++i) {
    Eigen::Index ja = 0, jb = 0;
    a.weights.row(i).maxCoeff(&ja);
    b.weights.row(i).maxCoeff(&jb);
    agree += ja == jb ? 1 : 0;
    js += 0.5 * klToMixture(a.weights.row(i), b.weights.row(i)) + 0.5 * klToMixture(b.weights.row(i), a.weights.row(i));
  }
  s.argmaxAgreement = static_cast<float>(agree) / static_cast<float>(rows);
  s.meanJsDivergence = static_cast<float>(js / static_cast<double>(rows));
  if (auto e = approximationError(a.weights, b.weights)) {
    s.frobenius = e->frobenius;
    s.meanRowKl = e->meanRowKl;
  } else {
    s.frobenius = s.meanRowKl = std::numeric_limits<double>::quiet_NaN();
  }
  return s;
}

}  // namespace attn
