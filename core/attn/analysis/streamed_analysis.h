#pragma once
// The whole analysis of softmax attention without any Nq x Nk array: query rows are scored, normalized and measured a block at a time, all
// heads of a block together, while the block is in cache; the heads'
// Jensen-Shannon divergence is taken from the same rows. Memory: the inputs
// plus a few H x B x Nk row blocks per thread, whatever N is. The results are
// those of analyzeResult over the materialized tiled weights
// (tests/core/analysis/metrics_fused_test.cpp checks both to 1e-6).
#include <string>
#include <vector>

#include "attn/analysis/head_analysis.h"
#include "attn/analysis/streamed_rows.h"
#include "attn/cpu/packed_keys.h"
#include "attn/cpu/tiled_attention.h"
#include "attn/engine.h"
#include "attn/io/float_rows_file.h"

namespace attn {

/// Where the time of an analysis went: CPU seconds per stage summed over the
/// threads (in pipeline order), and the wall time of the whole.
struct AnalysisProfile {
  struct Entry {
    std::string name;
    double cpuSeconds = 0;
  };
  std::vector<Entry> entries;
  double wallSeconds = 0;
  int threads = 1;
  void add(const std::string& name, double cpuSeconds);
};

/// Analysis of heads given as HeadViews (softmax of scale * q k^T + bias under
/// the mask), as analyzeHeads would give for their weights with no KeepMask
/// (non-zero weights are the unmasked keys, as for the tiled engine path).
/// Per-row entropy is -sum p log p of the fp32 weights, as analyzeResult's.
///
/// With `outputs` (sized nq x H * dv by the caller), each head's output P V as well, from the
/// same softmax rows the measures read (P normalized in fp32, V the view's v): head h's rows go
/// to outputs->middleCols(h * dv, dv). A streamed forward that wants both then scores Q K^T once,
/// where the tiled kernel's output would score it a second time.
///
/// With `headSum`, the sum over the heads of their softmax rows as well (nq x nk), from which
/// a forward that keeps no map steps the rollout across layers (layers.h).
Analysis analyzeStreamed(const std::vector<HeadView>& heads, const std::vector<std::string>& keyTokens,
                         const AnalysisOptions& options, AnalysisProfile* profile = nullptr,
                         Mat* outputs = nullptr, Mat* headSum = nullptr);

/// A sequence longer than a model's context, measured a window at a time (windowed_run.h):
/// add() takes one window's heads (views over its own q/k/v) and measures its rows from
/// `firstRow` on as rows windowStart + i of the whole (the rows before it were measured in an
/// earlier window and give only their output); finish() is the analysis of every row, as
/// analyzeStreamed gives for one window. Distances and offsets count within a row's window,
/// the first-token share is of the window's first token.
class WindowedAnalysis {
 public:
  /// `rows`: the sequence's length; `window`: the most keys a window has.
  WindowedAnalysis(int heads, int rows, int window, const AnalysisOptions& options);
  void add(const std::vector<HeadView>& heads, const std::vector<std::string>& keyTokens, int windowStart,
           int firstRow, Mat* outputs = nullptr);
  Analysis finish() { return rows_.finish(nullptr); }

 private:
  StreamedRows rows_;
};

/// The same over keys packed beforehand (keys[h] for heads[h]); the views' k
/// is not read (it may be null). With `queries`, the views' q is not read
/// either: query rows come from the file a block at a time (plane h for head
/// h), as they are (dot and scaled dot scores). A failed read throws
/// std::runtime_error with its message.
Analysis analyzeStreamed(const std::vector<HeadView>& heads, const std::vector<PackedKeys>& keys,
                         const std::vector<std::string>& keyTokens, const AnalysisOptions& options,
                         AnalysisProfile* profile = nullptr, const FloatRowsFile* queries = nullptr);

/// Whether a request can be analyzed streamed: the CPU kernels' exact paths
/// (tiled or sparse, as resolveExecPath picks them for this size) and a mask
/// with no pattern term (a pattern mask's metrics also compare against dense
/// attention, which needs the materialized weights).
bool canStreamAnalysis(const AttentionSpec& spec, int nq, int nk);

/// What `metrics` reports of a streamed run.
struct StreamedMetrics {
  Analysis analysis;
  int nq = 0, nk = 0;
  std::vector<std::string> queryTokens, keyTokens;
  std::vector<std::string> warnings;  // the engine's (fully masked rows)
  std::string execUsed;
};

/// runAttention's setup (setUpHeads), then analyzeStreamed over the heads; no
/// head output is computed (metrics do not need it).
Result<StreamedMetrics> analyzeAttentionStreamed(const AttentionInput& input, const AttentionSpec& spec,
                                                 const AnalysisOptions& options, AnalysisProfile* profile = nullptr);
/// The same, moving projected q/k/v out of `input` (resident memory: one copy
/// of q and k; v is dropped). An input whose queries were not kept
/// (queriesDropped(), dot or scaled-dot scores) is read a block of rows at a
/// time from its file: then only k is held whole.
Result<StreamedMetrics> analyzeAttentionStreamed(AttentionInput&& input, const AttentionSpec& spec,
                                                 const AnalysisOptions& options, AnalysisProfile* profile = nullptr);

}  // namespace attn
