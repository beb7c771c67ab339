#pragma once
// The coverage-k search behind coverageKOfRow (fused_rows.h), and the row
// totals it shares with the fused row pass (fused_rows.cpp): internal to the
// analysis. Smallest k whose k largest positive entries cover a level of the
// row's positive mass, without a sort: one exact pass over a bracket of values
// around the cut sums the entries above it in double and lists those inside,
// and the greedy finishes in the list.
#include <cstddef>
#include <vector>

#include "attn/analysis/fused_rows.h"

namespace attn::coverage {

/// Sum (double) and count of the entries >= a threshold, exact enough to
/// decide the greedy (NaN, zero and negative entries never count).
struct MassCount {
  double sum = 0;
  int count = 0;
};

/// Entries of p[0..n) >= v > 0. With `bracket` (room for n + 16 floats) the
/// entries in [below, v), below > 0, are written to it in order and
/// *bracketCount says how many.
MassCount massAtLeastExact(const float* p, int n, float v, float below = 0.0f, float* bracket = nullptr,
                           int* bracketCount = nullptr);

/// How many of the largest entries of `positive` (every one > 0; reordered in
/// place) it takes for their sum, in double, to reach `need`: all of them when
/// they fall short.
size_t countToCover(std::vector<float>& positive, double need);

/// Max of the row, min and count of its positive entries: one pass.
struct MaxMinCount {
  float max, minPositive;
  int positive;
};
MaxMinCount maxMinPositive(const float* p, int n);

/// coverageKOfRow for a row whose max, smallest positive entry and positive
/// entries' (double) sum and count are known (the fused pass has them).
float coverageKFrom(const float* p, int n, double level, FusedRowScratch& sc, float mx, float minPositive,
                    const MassCount& all);

}  // namespace attn::coverage
