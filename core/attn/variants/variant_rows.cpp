#include "attn/variants/variant_rows.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>

namespace attn::variants {

Mat maskedSoftmaxRows(const Mat& logits, std::vector<int>* emptyRows) {
  Mat w = Mat::Zero(logits.rows(), logits.cols());
  for (Eigen::Index i = 0; i < logits.rows(); ++i) {
    double m = -std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < logits.cols(); ++j)
      if (std::isfinite(logits(i, j))) m = std::max(m, static_cast<double>(logits(i, j)));
    if (!std::isfinite(m)) {
      if (emptyRows) emptyRows->push_back(static_cast<int>(i));
      continue;
    }
    double sum = 0;
    for (Eigen::Index j = 0; j < logits.cols(); ++j)
      if (std::isfinite(logits(i, j))) sum += std::exp(static_cast<double>(logits(i, j)) - m);
    for (Eigen::Index j = 0; j < logits.cols(); ++j)
      if (std::isfinite(logits(i, j)))
        w(i, j) = static_cast<float>(std::exp(static_cast<double>(logits(i, j)) - m) / sum);
  }
  return w;
}

Vec rowEntropy(const Mat& weights) {
  Vec h = Vec::Zero(weights.rows());
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    double s = 0;
    for (Eigen::Index j = 0; j < weights.cols(); ++j) {
      const double p = weights(i, j);
      if (p > 0) s -= p * std::log(p);
    }
    h(i) = static_cast<float>(s);
  }
  return h;
}

double meanRowKl(const Mat& p, const Mat& q) {
  if (p.rows() == 0) return 0;
  double total = 0;
  for (Eigen::Index i = 0; i < p.rows(); ++i)
    for (Eigen::Index j = 0; j < p.cols(); ++j) {
      const double a = p(i, j), b = q(i, j);
      if (a > 0) total += a * std::log(a / std::max(b, 1e-12));
    }
  return total / static_cast<double>(p.rows());
}

double topOneAgreement(const Mat& p, const Mat& q) {
  int rows = 0, same = 0;
  for (Eigen::Index i = 0; i < p.rows(); ++i) {
    if (p.row(i).maxCoeff() <= 0) continue;
    Eigen::Index a = 0, b = 0;
    p.row(i).maxCoeff(&a);
    q.row(i).maxCoeff(&b);
    ++rows;
    same += a == b;
  }
  return rows == 0 ? 1.0 : static_cast<double>(same) / rows;
}

Result<std::vector<double>> parsePerHeadList(std::string_view text, int heads, std::string_view option) {
  std::vector<double> values;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string item(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    double v = 0;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() || !std::isfinite(v))
      return Error{fmt::format("{}: '{}' is not a number (expected a list like 2,4,8)", option, item)};
    values.push_back(v);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (values.size() == 1) values.assign(static_cast<size_t>(std::max(heads, 1)), values.front());
  if (static_cast<int>(values.size()) != heads)
    return Error{fmt::format("{}: {} values for {} heads (give one value, or one per head)", option, values.size(), heads)};
  return values;
}

}  // namespace attn::variants
