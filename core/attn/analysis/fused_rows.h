#pragma once
// Every per-row measure of row_measures.h / entropy.h for one row, from one
// visit of the row while it is in cache (separate full passes over
// N x N weights, a sort per row and a scalar log per cell made the analysis far
// slower than the attention itself). The definitions stay those of the separate
// functions; tests/core/analysis/metrics_fused_test.cpp checks that both agree.
#include <Eigen/Core>
#include <vector>

#include "attn/tensor.h"

namespace attn {

/// Per-row results, in the conventions of the separate functions.
struct FusedRow {
  double plogp = 0;    // sum_j p_j log p_j over p_j > 0 (nats, <= 0); entropy = max(0, -plogp)
  int kept = 0;        // unmasked keys (keep row, or p_j > 0 without one)
  float maxWeight = 0; // max(0, max_j p_j)                 (rowMaxWeight)
  float maxMinGap = 0; // over unmasked keys                 (rowMaxMinGap)
  float maxMinRatio = 1;  //                                  (rowMaxMinRatio)
  float meanDistance = 0; // sum_j p_j |i - j|                (rowMeanDistance)
  float coverageK = 0;    //                                  (rowCoverageK)
  bool hasMass = false;   // any p_j > 0
};

/// Per-thread buffers of the row kernel.
struct FusedRowScratch {
  std::vector<float> crossing;  // the coverage search's list (the entries near the cut)
  float lastCut = 0;            // the last row's cut (a start for the next)
  float warmWidth = 1.0f / 8;   // the warm start's bracket: lastCut -+ this share of it
};

/// Seconds spent per measure when a caller profiles (metrics --profile).
struct RowTimes {
  double entropy = 0, maxMin = 0, distance = 0, coverage = 0;
};

/// Smallest k whose k largest positive entries of p[0..n) cover `level` of the
/// positive mass (rowCoverageK's definition, same 1e-6 relative slack), found
/// without sorting: a bracket of values around the cut (the last row's cut
/// -+ a few percent, else narrowed by vectorized float passes of sum and count
/// above thresholds over the values' bit patterns) is settled by one exact pass
/// over the row, which sums the entries above it in double and lists those
/// inside; the greedy then goes on in the list (8-threshold passes, then at
/// most 8 entries ordered).
float coverageKOfRow(const float* p, int n, double level, FusedRowScratch& scratch);

/// All measures of row i of a head with n keys. `keep` (n entries) may be
/// null: then p_j > 0 marks the unmasked keys. `plogp` (n floats, may be null)
/// receives the row's p log p terms; FusedRow::plogp is their sum, all the
/// Jensen-Shannon pass needs of the row besides the row itself.
FusedRow measureRow(const float* p, int n, int i, const bool* keep, double coverageLevel, FusedRowScratch& scratch,
                    float* plogp = nullptr, RowTimes* times = nullptr);

/// sum_j p_j log p_j over p_j > 0 (nats, double), and the terms into
/// plogp[0..n) when it is not null (0 where p_j = 0): the per-head half of the
/// Jensen-Shannon identity JS(p, q) = 1/2 sum p log p + 1/2 sum q log q - sum m log m,
/// m = (p + q) / 2. The terms p log2 p (a base-2 log: no multiply of the
/// exponent by ln 2 per cell) in float partial sums lane by lane over a block
/// of 64 cells, accumulated lane by lane in double, summed across lanes once
/// and multiplied by ln 2 at the end.
double plogpRow(const float* p, int n, float* plogp = nullptr);

/// sum_j m_j log m_j, m_j = (a_j + b_j) / 2, over m_j > 0, summed exactly as
/// plogpRow sums (so mlogmSum(a, a) == plogpRow(a)): one vectorized log per cell.
double mlogmSum(const float* a, const float* b, int n);

/// mlogmSum of rows given as halves (a_j / 2 and b_j / 2, exact in float for
/// normal values): m_j = a_j + b_j, one multiply per cell fewer.
double mlogmSumOfHalves(const float* aHalf, const float* bHalf, int n);

/// JS(a, b) in nats for rows that sum to 1, from the rows and their plogpRow
/// sums: 1/2 (plogpA + plogpB) - mlogmSum(a, b). Identical rows give exactly 0;
/// otherwise within float rounding of the definition (callers clamp at 0).
double jsRowFromSums(const float* a, const float* b, double plogpA, double plogpB, int n);

}  // namespace attn
