#include "attn/analysis/entropy.h"

#include <cmath>
#include <numbers>

namespace attn {

KeepMask keepMaskFromLogits(const Eigen::Ref<const Mat>& maskedLogits) {
  KeepMask keep(maskedLogits.rows(), maskedLogits.cols());
  for (Eigen::Index i = 0; i < maskedLogits.rows(); ++i)
    for (Eigen::Index j = 0; j < maskedLogits.cols(); ++j)
      keep(i, j) = !(std::isinf(maskedLogits(i, j)) && maskedLogits(i, j) < 0);
  return keep;
}

std::vector<int> keptKeyCounts(const Eigen::Ref<const Mat>& weights, const KeepMask& keep) {
  const bool useMask = keep.rows() == weights.rows() && keep.cols() == weights.cols() && keep.size() > 0;
  std::vector<int> n(static_cast<size_t>(weights.rows()), 0);
  for (Eigen::Index i = 0; i < weights.rows(); ++i)
    for (Eigen::Index j = 0; j < weights.cols(); ++j)
      if (useMask ? keep(i, j) : weights(i, j) > 0.0f) ++n[static_cast<size_t>(i)];
  return n;
}

Vec rowEntropy(const Eigen::Ref<const Mat>& weights, EntropyUnit unit) {
  const double scale = unit == EntropyUnit::Bits ? 1.0 / std::numbers::ln2 : 1.0;
  Vec h(weights.rows());
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    // Vectorized log; sums accumulate in double. Zero weights add nothing.
    const Eigen::ArrayXf p = weights.row(i).transpose().array();
    const double s = -(p > 0.0f).select(p * p.log(), 0.0f).cast<double>().sum();
    h[i] = static_cast<float>(std::max(0.0, s) * scale);
  }
  return h;
}

Vec normalizedRowEntropy(const Eigen::Ref<const Mat>& weights, const KeepMask& keep) {
  return normalizedFromEntropy(rowEntropy(weights), keptKeyCounts(weights, keep));
}

Vec normalizedFromEntropy(const Vec& entropyNats, const std::vector<int>& keptKeys) {
  Vec out(entropyNats.size());
  for (Eigen::Index i = 0; i < entropyNats.size(); ++i) {
    const int ni = keptKeys[static_cast<size_t>(i)];
    // Clamp: fp32 rounding can put a uniform row a hair above log n.
    out[i] = ni <= 1 ? 0.0f : static_cast<float>(std::min(1.0, entropyNats[i] / std::log(static_cast<double>(ni))));
  }
  return out;
}

double uniformEntropy(int n, EntropyUnit unit) {
  if (n <= 1) return 0.0;
  const double h = std::log(static_cast<double>(n));
  return unit == EntropyUnit::Bits ? h / std::numbers::ln2 : h;
}

}  // namespace attn
