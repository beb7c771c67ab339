#include "attn/variants/adaptive_span.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "attn/variants/variant_rows.h"

namespace attn::variants {

double spanRamp(double distance, double z, double ramp) {
  return std::clamp((ramp + z - distance) / ramp, 0.0, 1.0);
}

namespace {
Status checkSpan(double z, double ramp) {
  if (!(ramp > 0) || !std::isfinite(ramp)) return Error{fmt::format("--span-ramp must be more than 0 (got {})", ramp)};
  if (!(z >= 0) || !std::isfinite(z)) return Error{fmt::format("--span-z must be 0 or more (got {})", z)};
  return okStatus();
}
}  // namespace

Result<SpanHead> adaptiveSpanHead(const Mat& weights, const Mat& v, double z, double ramp) {
  if (auto st = checkSpan(z, ramp); !st) return st.error();
  if (v.size() > 0 && v.rows() != weights.cols())
    return Error{fmt::format("adaptive span: v has {} rows for {} keys", v.rows(), weights.cols())};
  SpanHead h;
  h.z = z;
  const Eigen::Index nq = weights.rows(), nk = weights.cols();
  const Eigen::Index maxDist = std::max(nq, nk);
  h.ramp.resize(maxDist);
  for (Eigen::Index x = 0; x < maxDist; ++x) h.ramp(x) = static_cast<float>(spanRamp(static_cast<double>(x), z, ramp));
  h.weights = Mat::Zero(nq, nk);
  double kept = 0;
  for (Eigen::Index i = 0; i < nq; ++i) {
    double sum = 0;
    for (Eigen::Index j = 0; j < nk; ++j) sum += static_cast<double>(h.ramp(std::abs(i - j))) * weights(i, j);
    if (!(sum > 0)) {
      h.emptyRows.push_back(static_cast<int>(i));
      continue;
    }
    for (Eigen::Index j = 0; j < nk; ++j) {
      const double m = h.ramp(std::abs(i - j));
      if (m > 0 && weights(i, j) > 0) {
        h.weights(i, j) = static_cast<float>(m * weights(i, j) / sum);
        kept += 1;
      }
    }
  }
  h.meanSpan = nq > 0 ? kept / static_cast<double>(nq) : 0;
  if (v.size() > 0) h.output = h.weights * v;
  h.entropy = rowEntropy(h.weights);
  return h;
}

Result<std::vector<SpanHead>> adaptiveSpan(const AttentionResult& r, const std::vector<double>& z, double ramp) {
  if (static_cast<int>(z.size()) != r.numHeads())
    return Error{fmt::format("--span-z: {} values for {} heads", z.size(), r.numHeads())};
  std::vector<SpanHead> out;
  for (int h = 0; h < r.numHeads(); ++h) {
    const auto& head = r.heads[static_cast<size_t>(h)];
    if (head.weights.size() == 0) return Error{"adaptive span: the result has no attention weights"};
    auto s = adaptiveSpanHead(head.weights, head.v, z[static_cast<size_t>(h)], ramp);
    if (!s) return s.error();
    out.push_back(std::move(s).value());
  }
  return out;
}

Result<SpanRowWalk> spanRowWalk(const Mat& weights, double z, double ramp, int row) {
  if (auto st = checkSpan(z, ramp); !st) return st.error();
  if (row < 0 || row >= weights.rows())
    return Error{fmt::format("row {} is out of range (0..{})", row, weights.rows() - 1)};
  SpanRowWalk w;
  w.row = row;
  w.z = z;
  w.ramp = ramp;
  const Eigen::Index nk = weights.cols();
  w.mask.resize(nk);
  w.before = weights.row(row).transpose();
  w.masked.resize(nk);
  w.after = Vec::Zero(nk);
  for (Eigen::Index j = 0; j < nk; ++j) {
    const int x = std::abs(row - static_cast<int>(j));
    w.distances.push_back(x);
    w.mask(j) = static_cast<float>(spanRamp(x, z, ramp));
    w.masked(j) = w.mask(j) * w.before(j);
    w.maskedSum += w.masked(j);
  }
  if (w.maskedSum > 0) w.after = (w.masked.cast<double>() / w.maskedSum).cast<float>();
  return w;
}

}  // namespace attn::variants
