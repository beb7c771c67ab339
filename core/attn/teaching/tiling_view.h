#pragma once
// Teaching view of tiled execution: which query x key tiles a tiled
// pass computes, skips or tests cell by cell under the mask, and how one query
// row's online softmax evolves tile by tile (running max m, normalizer l,
// rescale e^(m_old - m_new), entropy so far; Milakov & Gimelshein 2018,
// Dao et al. 2022 alg. 1). Small tiles make a sentence show several of them;
// the numbers are the same whatever the tile size.
#include <string>

#include "attn/cpu/tiled_attention.h"
#include "attn/engine.h"

namespace attn {

struct TilingTeachingView {
  int head = 0, row = 0;
  TileConfig tiles;          // the teaching tile sizes used below
  BlockSchedule schedule;    // every tile's state
  RowTrace trace;            // the row's online softmax, one step per key tile
  double engineEntropy = 0;  // the result's own entropy of the row (the trace must end there)
  double enginePeak = 0;     // the result's max weight of the row (0 when no map was kept)
  TileConfig engineTiles;    // what the engine's tiled / sparse path uses
};

/// The view for `head`, `row` of a result computed with `spec`, with tiles of
/// `block` x `block`. Errors (one line) when the head keeps no queries/keys
/// (precomputed weights) or the mechanism's score is not a dot product.
Result<TilingTeachingView> tilingTeachingView(const AttentionResult& result, const AttentionSpec& spec,
                                              int head, int row, int block);

}  // namespace attn
