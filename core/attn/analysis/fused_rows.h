#pragma once
// Every per-row measure of row_measures.h / entropy.h for one row, from one
// visit of the row while it is in cache (issue 17: separate full passes over
// N x N weights, a sort per row and a scalar log per cell made the analysis 80x
// slower than the attention). The definitions stay those of the separate
// functions; tests/core/metrics_fused_test.cpp checks that both agree.
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

/// Per-thread buffers of the row kernel (histogram of the coverage search).
struct FusedRowScratch {
  std::vector<double> bucketSum;
  std::vector<int> bucketCount;
  std::vector<float> crossing;
  std::vector<float> plogp;  // when the caller keeps no p log p row
  Eigen::ArrayXd keyIndex;  // 0 .. n-1, for the distance
};

/// Seconds spent per measure when a caller profiles (metrics --profile).
struct RowTimes {
  double entropy = 0, maxMin = 0, distance = 0, coverage = 0;
};

/// Smallest k whose k largest positive entries of p[0..n) cover `level` of the
/// positive mass (rowCoverageK's definition, same 1e-6 relative slack), found
/// without sorting: a histogram of the entries by exponent and top three
/// mantissa bits locates the bucket where the cumulative mass crosses; only
/// that bucket's entries are ordered. Two passes over the row.
float coverageKOfRow(const float* p, int n, double level, FusedRowScratch& scratch);

/// All measures of row i of a head with n keys. `keep` (n entries) may be
/// null: then p_j > 0 marks the unmasked keys. `plogp` (n floats, may be null)
/// receives the row's p log p terms for the Jensen-Shannon pass.
FusedRow measureRow(const float* p, int n, int i, const bool* keep, double coverageLevel, FusedRowScratch& scratch,
                    float* plogp = nullptr, RowTimes* times = nullptr);

/// sum_j p_j log p_j over p_j > 0 into plogp[0..n) (0 elsewhere), and its sum
/// (double): the per-head half of the Jensen-Shannon identity
/// JS(p, q) = 1/2 sum p log p + 1/2 sum q log q - sum m log m, m = (p + q) / 2.
double plogpRow(const float* p, int n, float* plogp);

/// sum_j [1/2 (a_j log a_j + b_j log b_j) - m_j log m_j], m_j = (a_j + b_j) / 2,
/// over m_j > 0: JS(a, b) in nats for rows that sum to 1, from the rows and their
/// plogpRow terms. Each cell's term is >= 0 up to rounding, so it is summed
/// as is (no cancellation between three large sums). One vectorized log per cell.
double jsRowFromPlogp(const float* a, const float* b, const float* plogpA, const float* plogpB, int n);

}  // namespace attn
