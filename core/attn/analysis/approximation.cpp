#include "attn/analysis/approximation.h"

#include <fmt/format.h>

#include <cmath>

namespace attn {

Result<ApproximationError> approximationError(const Eigen::Ref<const Mat>& exact,
                                              const Eigen::Ref<const Mat>& approx) {
  if (exact.rows() != approx.rows() || exact.cols() != approx.cols())
    return Error{fmt::format("approximation error: exact weights are {}x{} but the approximation is {}x{}",
                             exact.rows(), exact.cols(), approx.rows(), approx.cols())};
  for (const auto* m : {&exact, &approx})
    for (Eigen::Index i = 0; i < m->rows(); ++i)
      for (Eigen::Index j = 0; j < m->cols(); ++j)
        if (!std::isfinite((*m)(i, j)))
          return Error{fmt::format("approximation error: {} weights have a non-finite value at ({}, {})",
                                   m == &exact ? "exact" : "approximate", i, j)};
  ApproximationError e;
  const Eigen::MatrixXd a = exact.cast<double>(), b = approx.cast<double>();
  e.frobenius = (a - b).norm();
  const double na = a.norm();
  e.relativeFrobenius = na > 0.0 ? e.frobenius / na : 0.0;
  if (b.minCoeff() < 0.0)
    e.warnings.push_back(fmt::format("approximation has negative weights (smallest {:.3g}); "
                                     "clamped to 0 for the KL divergence",
                                     b.minCoeff()));
  std::vector<int> emptyRows;
  double klSum = 0.0;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    const double sa = a.row(i).cwiseMax(0.0).sum();
    if (sa <= 0.0) continue;
    const Eigen::RowVectorXd bi = b.row(i).cwiseMax(0.0);
    const double sb = bi.sum();
    if (sb <= 0.0) emptyRows.push_back(static_cast<int>(i));
    double kl = 0.0;
    for (Eigen::Index j = 0; j < a.cols(); ++j) {
      const double p = std::max(0.0, a(i, j)) / sa;
      if (p <= 0.0) continue;
      const double q = std::max(sb > 0.0 ? bi[j] / sb : 0.0, kKlFloor);
      kl += p * std::log(p / q);
    }
    kl = std::max(0.0, kl);
    klSum += kl;
    ++e.rowsCompared;
    if (e.worstRow < 0 || kl > e.maxRowKl) {
      e.maxRowKl = kl;
      e.worstRow = static_cast<int>(i);
    }
  }
  if (e.rowsCompared > 0) e.meanRowKl = klSum / e.rowsCompared;
  if (!emptyRows.empty())
    e.warnings.push_back(fmt::format("approximation has no mass on {} row(s) where exact attention has "
                                     "(first: row {}); their KL uses the {:g} floor",
                                     emptyRows.size(), emptyRows.front(), kKlFloor));
  return e;
}

}  // namespace attn
