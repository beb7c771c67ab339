#include "attn/train/induction_scores.h"

#include <algorithm>

namespace attn::train {

double previousTokenShare(const Mat& a) {
  const int n = static_cast<int>(std::min(a.rows(), a.cols()));
  if (n < 2) return 0.0;
  double sum = 0;
  for (int i = 1; i < n; ++i) sum += a(i, i - 1);
  return sum / (n - 1);
}

double expectedPatternShare(const Mat& a, const Mat& expected) {
  if (a.rows() != expected.rows() || a.cols() != expected.cols()) return 0.0;
  double sum = 0;
  int rows = 0;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    if (expected.row(i).sum() <= 0.0f) continue;
    sum += a.row(i).dot(expected.row(i));
    ++rows;
  }
  return rows > 0 ? sum / rows : 0.0;
}

int firstLastingStep(const std::vector<double>& score, double threshold) {
  int first = -1;
  for (int i = 0; i < static_cast<int>(score.size()); ++i) {
    if (score[static_cast<size_t>(i)] < threshold)
      first = -1;
    else if (first < 0)
      first = i;
  }
  return first;
}

}  // namespace attn::train
