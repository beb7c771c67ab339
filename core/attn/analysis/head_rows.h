#pragma once
// One head's measures assembled from rows that arrive in any order, from any
// thread: the materialized analysis (analyzeHeads) and the streamed one
// (streamed_analysis.h) both feed measureRow results through it.
#include <algorithm>
#include <string>
#include <vector>

#include "attn/analysis/fused_rows.h"
#include "attn/analysis/head_analysis.h"

namespace attn {

/// Mean, min and max of values added one at a time (a head's row measures).
struct MeanMinMax {
  double sum = 0, min = 0, max = 0;
  int n = 0;
  void add(double v) {
    min = n == 0 ? v : std::min(min, v);
    max = n == 0 ? v : std::max(max, v);
    sum += v;
    ++n;
  }
  double mean() const { return n > 0 ? sum / n : 0.0; }
};

/// A thread's share of the row sums of one head: offset profile and pattern
/// shares (rows with mass only), merged once at the end.
struct HeadRowSums {
  Eigen::VectorXd offsets;  // nq + nk - 1, offset o at o + nq - 1
  double diagonal = 0, previous = 0, next = 0, first = 0, separator = 0;
  int nDiagonal = 0, nPrevious = 0, nNext = 0, nRows = 0;

  void reset(int nq, int nk);
  /// Row i (with mass) of a head with nq rows; separatorIndex: the separator keys.
  void addRow(const float* p, int nk, int i, int nq, const std::vector<int>& separatorIndex);
  void merge(const HeadRowSums& o);
};

/// Sizes a head's per-row vectors for rows x cols.
void startHead(HeadAnalysis& a, int rows, int cols);
/// Stores row i's measures (entropy in nats until finishHead).
void storeRow(HeadAnalysis& a, int i, const FusedRow& r);
/// Means, collapse flags, offsets and shares from the stored rows and sums.
void finishHead(HeadAnalysis& a, const HeadRowSums& sums, int separatorKeys, const AnalysisOptions& opt);

/// "<what>: N fully masked row(s) (r1, r2, ... and K more) have no weights; left out of the head's means".
std::string fullyMaskedRowsWarning(const std::string& what, const std::vector<int>& rows);

/// Indices of the true entries.
std::vector<int> separatorIndex(const std::vector<bool>& separatorKey, int nk);

}  // namespace attn
