#pragma once
// How much a head of the training view's fixed example behaves as a
// previous-token head or as an induction head (Olsson et al. 2022, sec. 2 and
// appendix: the mean attention a head puts on the key that rule names, over the
// queries where the rule names one; TransformerLens detect_head scores the same).
#include <vector>

#include "attn/tensor.h"

namespace attn::train {

/// Mean over queries i >= 1 of a(i, i-1); 0 for a map with fewer than 2 rows.
double previousTokenShare(const Mat& a);

/// Mean over the rows of `expected` that are not all zero of sum_j a(i, j) *
/// expected(i, j): the weight on the key the rule names (Induction's expected
/// pattern: the token after the earlier copy of the current one). 0 when no row is.
double expectedPatternShare(const Mat& a, const Mat& expected);

/// The first step at which `score` reaches `threshold` and stays there for the
/// rest of the recorded run (a phase change, not a passing spike); -1 if never.
int firstLastingStep(const std::vector<double>& score, double threshold);

}  // namespace attn::train
