#include "attn/models/streamed/head_maps.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "attn/cpu/tiled_attention.h"

namespace attn::models {
namespace {

constexpr int kRowBlock = 256;   // rows scored at once: 256 x N floats (8 MiB at N = 8192)
constexpr int kMaskBlock = 512;  // mask tiles asked of Mask::blockState (no cell visited when uniform)

Status checkHead(const QkStore& s, int layer, int head) {
  if (layer < 0 || layer >= s.layers())
    return Error{fmt::format("layer {} asked for, but the model has {} layers (0 to {})", layer, s.layers(),
                             s.layers() - 1)};
  if (head < 0 || head >= s.heads())
    return Error{fmt::format("head {} asked for, but the layer has {} heads (0 to {})", head, s.heads(),
                             s.heads() - 1)};
  return okStatus();
}

/// Masked cells of the block of rows [r0, r0 + rows) to -inf.
void maskBlockOfRows(const Mask& mask, int r0, Mat& s) {
  if (mask.isNone()) return;
  const int rows = static_cast<int>(s.rows()), n = static_cast<int>(s.cols());
  constexpr float kInf = std::numeric_limits<float>::infinity();
  for (int j0 = 0; j0 < n; j0 += kMaskBlock) {
    const int c = std::min(kMaskBlock, n - j0);
    const BlockState st = mask.blockState(r0, r0 + rows, j0, j0 + c);
    if (st == BlockState::AllAllowed) continue;
    if (st == BlockState::AllMasked) {
      s.middleCols(j0, c).setConstant(-kInf);
      continue;
    }
    for (int a = 0; a < rows; ++a)
      for (int j = j0; j < j0 + c; ++j)
        if (!mask.allowed(r0 + a, j)) s(a, j) = -kInf;
  }
}

/// Full rows [r0, r0 + rows) of the map: the materialized forward's steps in its order.
void weightRows(const QkStore& store, int layer, int head, const Mat& keys, int r0, int rows, Mat& s) {
  const Mat q = store.queries(layer, head, r0, r0 + rows);
  s.resize(rows, keys.rows());
  s.noalias() = q * keys.transpose();
  s *= store.scale(layer);
  maskBlockOfRows(store.mask(), r0, s);
  RowStats st;
  softmaxRowsInPlace(s, st);
}

}  // namespace

const char* poolingName(Pooling p) { return p == Pooling::Max ? "max" : "mean"; }

MapRect fullMap(const QkStore& s) { return {0, s.tokens(), 0, s.tokens()}; }

int64_t mapBytes(const MapRect& r) { return r.cells() * static_cast<int64_t>(sizeof(float)); }

int64_t pooledBytes(int tokens, int block) {
  const int64_t side = block > 0 ? (tokens + block - 1) / block : 0;
  return side * side * static_cast<int64_t>(sizeof(float));
}

Result<Mat> headMap(const QkStore& store, int layer, int head, const MapRect& r) {
  if (auto st = checkHead(store, layer, head); !st) return st.error();
  const int n = store.tokens();
  if (r.row0 < 0 || r.row1 > n || r.row0 >= r.row1 || r.col0 < 0 || r.col1 > n || r.col0 >= r.col1)
    return Error{fmt::format("rows {}:{} x columns {}:{} are not a rectangle inside the {} x {} map", r.row0,
                             r.row1, r.col0, r.col1, n, n)};
  const Mat keys = store.keys(layer, head, 0, n);
  Mat out(r.row1 - r.row0, r.col1 - r.col0), s;
  for (int i0 = r.row0; i0 < r.row1; i0 += kRowBlock) {
    const int rows = std::min(kRowBlock, r.row1 - i0);
    weightRows(store, layer, head, keys, i0, rows, s);
    out.middleRows(i0 - r.row0, rows) = s.middleCols(r.col0, r.col1 - r.col0);
  }
  return out;
}

Result<Mat> pooledMap(const QkStore& store, int layer, int head, int block, Pooling pooling) {
  if (auto st = checkHead(store, layer, head); !st) return st.error();
  const int n = store.tokens();
  if (block < 1) return Error{fmt::format("pooling block {} must be at least 1", block)};
  const int side = (n + block - 1) / block;
  const Mat keys = store.keys(layer, head, 0, n);
  Mat out = Mat::Zero(side, side), s;
  const int rowsAtOnce = std::max(block, kRowBlock / block * block);  // whole pooling blocks
  for (int i0 = 0; i0 < n; i0 += rowsAtOnce) {
    const int rows = std::min(rowsAtOnce, n - i0);
    weightRows(store, layer, head, keys, i0, rows, s);
    for (int a = 0; a < rows; a += block) {
      const int br = std::min(block, rows - a), I = (i0 + a) / block;
      for (int J = 0; J < side; ++J) {
        const int bc = std::min(block, n - J * block);
        const auto cells = s.block(a, J * block, br, bc);
        out(I, J) = pooling == Pooling::Max ? cells.maxCoeff() : cells.sum() / static_cast<float>(br * bc);
      }
    }
  }
  return out;
}

}  // namespace attn::models
