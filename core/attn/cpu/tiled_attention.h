#pragma once
// Exact softmax attention computed in blocks, FlashAttention-style (Dao et al.
// 2022, alg. 1): scores for a query block x key block tile, an online softmax
// that rescales the running normalizer and output when the row max grows
// (Milakov & Gimelshein 2018), and the row entropy kept online too:
//   H = log l - t / l,  l = sum e^(s - m),  t = sum e^(s - m) (s - m),
// so no per-element log and no Nq x Nk storage unless the weights are asked for.
#include <cstdint>
#include <vector>

#include "attn/masks/mask.h"
#include "attn/tensor.h"

namespace attn {

/// State of tile [i0, i1) x [j0, j1): Mask::blockState (procedural, no cell
/// visited), AllAllowed for no mask. The kernels skip AllMasked tiles and
/// test cells only inside Mixed ones.
BlockState tileState(const Mask* mask, int i0, int i1, int j0, int j1);

struct TileConfig {
  int queryBlock = 256;  // docs/performance.md: 256 x 512 keeps the tile in L2
  int keyBlock = 512;
};

/// One head's inputs, as views. Scores are s_ij = scale * q_i . k_j + bias_ij,
/// -inf where the mask forbids (i, j).
struct HeadView {
  const Mat* q = nullptr;     // [Nq, dk]
  const Mat* k = nullptr;     // [Nk, dk]
  const Mat* v = nullptr;     // [Nk, dv]
  float scale = 1.0f;
  const Mat* bias = nullptr;  // [Nq, Nk] or null
  const Mask* mask = nullptr; // null: nothing masked
};

/// Per-thread buffers, grown on demand and reused across calls (first touch of
/// fresh pages is expensive; see docs/performance.md).
struct TileScratch {
  Mat qs;                     // scaled query block
  Mat s;                      // score tile, exponentiated in place
  Mat acc;                    // running output of a query block
  Mat rows;                   // full-width score rows of a block (weights path)
  Eigen::VectorXd m, l, t;    // running max, normalizer, entropy numerator

  size_t bytes() const {
    return sizeof(float) * static_cast<size_t>(qs.size() + s.size() + acc.size() + rows.size()) +
           sizeof(double) * static_cast<size_t>(m.size() + l.size() + t.size());
  }
};

/// Per-row results of a pass. Fully masked rows get output 0, entropy 0,
/// max -inf, normalizer 0 and are listed in fullyMaskedRows.
struct RowStats {
  Vec entropy;  // nats
  Vec max;      // max score over the row's allowed keys
  Vec sum;      // softmax normalizer l relative to that max
  std::vector<int> fullyMaskedRows;
};

/// Outputs and row statistics without materializing any Nq x Nk array: extra
/// memory is the scratch (a few hundred KB), whatever N is.
void flashAttention(const HeadView& in, const TileConfig& cfg, TileScratch& scratch, Mat& output,
                    RowStats& stats);

/// Same pass, but writes the normalized weights too. `weights` keeps its
/// storage when it already has the right shape (callers reuse it per head).
/// With `threads` > 1 the query blocks are shared among OpenMP threads (use it
/// for a single head; across heads the caller parallelizes instead).
/// With `scaledLogits` non-null it also receives the scaled logits
/// scale * q . k (no bias, no mask: the naive path's scaledLogits) as computed
/// by the tile GEMM, at the cost of one more Nq x Nk store.
void blockedAttentionWithWeights(const HeadView& in, const TileConfig& cfg, Mat& weights,
                                 Mat& output, RowStats& stats, int threads = 1,
                                 Mat* scaledLogits = nullptr);

/// Softmax of every row of `scores` in place, as the tiled kernels do it: one
/// vectorized exp per cell with the entropy numerator in the same pass
/// (H = log l - t/l, no per-cell log). Cells at -inf (or below -1e29) are
/// masked and get weight exactly 0; a row with every cell masked gets all-zero
/// weights, entropy 0 and is listed in fullyMaskedRows. Used by the naive path.
void softmaxRowsInPlace(Mat& scores, RowStats& stats);

/// Teaching view: how the online softmax of one query row evolves, tile by tile.
struct TileStep {
  int keyBegin = 0, keyEnd = 0;  // [keyBegin, keyEnd)
  BlockState state = BlockState::Mixed;
  float tileMax = 0;             // max score of the row within the tile (-inf: none allowed)
  double runningMax = 0;         // m after the tile
  double runningSum = 0;         // l after the tile, relative to runningMax
  double rescale = 1;            // e^(m_old - m_new) applied to l and the output
  double entropySoFar = 0;       // log l - t / l over the keys seen so far
};
struct RowTrace {
  int row = 0;
  int queryBlock = 0;            // index of the query block holding the row
  std::vector<TileStep> steps;
  double finalEntropy = 0;
};
/// The block schedule: for each query block, the state of every key tile.
struct BlockSchedule {
  int queryBlock = 0, keyBlock = 0, numQueryBlocks = 0, numKeyBlocks = 0;
  std::vector<BlockState> states;  // row-major [numQueryBlocks, numKeyBlocks]
  int computedTiles() const;
};
BlockSchedule blockSchedule(const Mask& mask, int nq, int nk, const TileConfig& cfg);
RowTrace traceRow(const HeadView& in, const TileConfig& cfg, int row);

}  // namespace attn
