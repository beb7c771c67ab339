#pragma once
// Attention maps recomputed on demand from a streamed forward's kept q and k
// (qk_store.h): one head's whole map, a rectangle of it, or a block-pooled
// overview for a long sequence. Rows are computed a block at a time over all
// keys (a row's softmax needs every key), as the materialized forward computes
// them: s = scale * q k^T, masked cells -inf, softmax per row. Extra memory is
// one block of full rows (rowBlock x N floats), never N x N.
#include "attn/models/streamed/qk_store.h"
#include "attn/status.h"

namespace attn::models {

/// Rows [row0, row1) x columns [col0, col1) of a map.
struct MapRect {
  int row0 = 0, row1 = 0, col0 = 0, col1 = 0;
  int64_t cells() const { return static_cast<int64_t>(row1 - row0) * (col1 - col0); }
};

/// How a block of cells becomes one overview cell.
enum class Pooling { Max, Mean };
const char* poolingName(Pooling p);

/// The whole map of (layer, head).
MapRect fullMap(const QkStore& store);

/// The weights of `rect` of (layer, head): [rows, cols]. Errors name a layer, head or
/// rectangle outside the store.
Result<Mat> headMap(const QkStore& store, int layer, int head, const MapRect& rect);

/// The N x N map of (layer, head) pooled in block x block squares: cell (I, J) is the max
/// or the mean of the weights in rows [I B, (I+1) B) x columns [J B, (J+1) B) (the last
/// block of a side may be shorter; its mean is over the cells it has). Masked cells count
/// as weight 0. [ceil(N / B), ceil(N / B)].
Result<Mat> pooledMap(const QkStore& store, int layer, int head, int block, Pooling pooling);

/// Bytes of a rectangle's floats, and of a pooled overview's.
int64_t mapBytes(const MapRect& rect);
int64_t pooledBytes(int tokens, int block);

}  // namespace attn::models
