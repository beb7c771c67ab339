#include "attn/train/induction_scores.h"

#include "attn/analysis/head_types.h"

namespace attn::train {

double examplePreviousTokenScore(const Mat& a) { return previousTokenScore(a); }

double exampleInductionScore(const Mat& a) {
  const int n = static_cast<int>(a.rows()), half = n / 2;
  return half >= 1 ? inductionScore(a, half, RowRange{half, n}) : 0.0;
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
