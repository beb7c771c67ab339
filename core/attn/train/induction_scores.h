#pragma once
// The training view's reading of its fixed induction example: how much each
// head behaves as a previous-token head or as an induction head, by the
// map-level scores of attn/analysis/head_types.h (Olsson et al. 2022, sec. 2),
// and when the induction score jumped for good (the "phase change").
#include <vector>

#include "attn/tensor.h"

namespace attn::train {

/// previousTokenScore of a map of the example: mean over queries i >= 1 of a(i, i-1).
double examplePreviousTokenScore(const Mat& a);

/// inductionScore of a map of the example (exampleBatch: the first N/2 tokens
/// repeated): over the queries of the repeat, i >= N/2, the mean of
/// a(i, i - N/2 + 1), the token after the earlier copy of the current one.
double exampleInductionScore(const Mat& a);

/// The first step at which `score` reaches `threshold` and stays there for the
/// rest of the recorded run (a phase change, not a passing spike); -1 if never.
int firstLastingStep(const std::vector<double>& score, double threshold);

}  // namespace attn::train
