#include "attn/teaching/tiling_view.h"

#include <fmt/format.h>

#include "attn/cpu/efficient_exec.h"
#include "attn/engine/exec_path.h"

namespace attn {

Result<TilingTeachingView> tilingTeachingView(const AttentionResult& result, const AttentionSpec& specIn,
                                              int head, int row, int block) {
  if (head < 0 || head >= result.numHeads())
    return Error{fmt::format("tiling view: head {} is not one of the {} heads", head + 1, result.numHeads())};
  const HeadResult& h = result.heads[static_cast<size_t>(head)];
  if (h.q.size() == 0 || h.k.size() == 0 || h.v.size() == 0)
    return Error{"tiling view: this result has no queries and keys (precomputed weights)"};
  if (!tiledSupports(specIn.mechanism))
    return Error{fmt::format("tiling view: the tiled kernels cover dot-product scores; mechanism '{}' runs naive",
                             mechanismName(specIn.mechanism))};
  const int nq = static_cast<int>(h.q.rows()), nk = static_cast<int>(h.k.rows());
  if (row < 0 || row >= nq) return Error{fmt::format("tiling view: row {} is not one of the {} queries", row, nq)};
  if (block < 1) return Error{fmt::format("tiling view: tile size {} must be at least 1", block)};
  AttentionSpec spec = specIn;
  spec.mask = result.mask;  // bound to the tokens (padding) as the engine ran it
  TilingTeachingView v;
  v.head = head;
  v.row = row;
  v.tiles = TileConfig{block, block};
  v.engineTiles = result.execUsed == "sparse" ? TileConfig{64, 64} : TileConfig{};
  Mat qBuf, kBuf;
  const HeadView in = tiledHeadView(spec, h, qBuf, kBuf);
  v.schedule = blockSchedule(spec.mask, nq, nk, v.tiles);
  v.trace = traceRow(in, v.tiles, row);
  if (row < h.entropy.size()) v.engineEntropy = h.entropy[row];
  if (row < h.weights.rows() && h.weights.cols() > 0) v.enginePeak = h.weights.row(row).maxCoeff();
  return v;
}

}  // namespace attn
