#pragma once
// The streamed analysis' running state: query rows scored, normalized and
// measured a block at a time (streamed_analysis.h), over one call or over
// several windows of a longer sequence, each row measured once. The heads' row
// sums, pair divergences and per-row measures accumulate here until finish().
#include <array>
#include <string>
#include <vector>

#include "attn/analysis/head_analysis.h"
#include "attn/analysis/head_rows.h"
#include "attn/cpu/packed_keys.h"
#include "attn/cpu/tiled_attention.h"
#include "attn/io/float_rows_file.h"

namespace attn {

struct AnalysisProfile;

class StreamedRows {
 public:
  /// `rows`: every row that will be measured; `keys`: the most keys one call's heads have.
  StreamedRows(int heads, int rows, int keys, const AnalysisOptions& options);

  /// Measures the query rows [firstRow, nq) of `heads` (nq: their q's rows, or `queries`'),
  /// stored as rows rowOffset + i of the whole; keys[h] packed for heads[h] (the views' k is not
  /// read), keyTokens the keys' strings. With `outputs`, every row's output P V as well (rows
  /// before firstRow only that), head h's into outputs->middleCols(h * dv, dv). Distances and
  /// offsets count within the call (j - i over its own rows and keys), the first-token share
  /// is of its first key. A failed read of `queries` throws std::runtime_error.
  void add(const std::vector<HeadView>& heads, const std::vector<const PackedKeys*>& keys,
           const std::vector<std::string>& keyTokens, const FloatRowsFile* queries, int firstRow,
           int rowOffset, Mat* outputs, AnalysisProfile* profile);

  /// Adds every head's softmax rows, as they are measured, into `sum` (rows x keys, zeroed
  /// here), for the rollout across layers (layers.h: RunningRollout::addHeadSum); null: no sum.
  /// The measured rows then go a block of all heads at a time, so no two threads add to one row.
  void sumHeadsInto(Mat* sum);

  /// The analysis of every row added: per-head means, shares, flags and the heads' divergence.
  Analysis finish(AnalysisProfile* profile);

 private:
  static constexpr int kStageCount = 8;
  Analysis out_;
  std::vector<char> use_;  // rows of the sampled divergence (empty: exact, or none)
  bool divergence_ = false, inline_ = false;
  std::vector<HeadRowSums> sums_;
  PairDivergence pairs_;
  std::array<double, kStageCount> seconds_{};
  std::vector<char> separator_;  // keys (by rowOffset + j) that are separators
  int threads_ = 1;
  double wallSeconds_ = 0;
  Mat* headSum_ = nullptr;
};

}  // namespace attn
