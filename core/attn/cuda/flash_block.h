#pragma once
// The CUDA kernels' arithmetic, written once for the GPU and the CPU.
//
// flashBlock: exact softmax attention for one (head, query block), FlashAttention
// style (Dao et al. 2022, alg. 1): a Br x dk query tile and the running output
// stay in shared memory while Bc-key tiles stream past; the online softmax
// rescales the normalizer l, the entropy numerator t and the output when the
// row max grows (the CPU's tiled_attention.cpp, same formulas):
//   H = log l - t / l,  l = sum e^(s - m),  t = sum e^(s - m) (s - m).
// Tiles the mask classifies AllMasked are skipped (the same block
// classification the CPU kernels use); only Mixed tiles test cells.
//
// A decoder's self-attention adds two things (the model forward on the GPU):
// causal: j <= i, classified per tile procedurally, so tiles above the
// diagonal are skipped without a tile table; and grouped-query attention
// (Ainslie et al. 2023, GQA): a block takes the `group` query heads that share
// one K/V head, their query rows stacked in one tile, so each K/V tile is
// loaded once for the whole group (transformers' repeat_kv, without the copy).
//
// The block is written as phases separated by barriers: an Exec runs a phase
// for every thread of the block and then synchronizes. On the GPU that is
// f(threadIdx.x); __syncthreads() (kernels.cu); in the CPU emulation
// (host_emulation.h) it is a loop over the thread ids, which tests the index
// arithmetic and tile logic here in builds and on machines without a GPU.
// No warp shuffles: every value crossing threads goes through shared memory.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "attn/cuda/half_bits.h"
#include "attn/cuda/hd.h"
#include "attn/cuda/mask_device.h"

namespace attn::gpu {

/// Same order as attn::BlockState.
enum class TileKind : uint8_t { AllMasked = 0, AllAllowed = 1, Mixed = 2 };

inline constexpr float kMaskedBelowF = -1e29f;  // as softmax_rows.h: below = masked

ATTN_HD_INLINE float negInfF() {
  const uint32_t bits = 0xff800000u;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/// How q, k, v are stored on the device: fp32, or fp16 / bf16 patterns decoded
/// to fp32 on load (all arithmetic and accumulation stays fp32).
enum class InputType : int32_t { F32, F16, BF16 };

ATTN_HD_INLINE float loadInput(const float* p32, const uint16_t* p16, InputType t, size_t i) {
  switch (t) {
    case InputType::F16: return halfToFloat(p16[i]);
    case InputType::BF16: return bf16ToFloat(p16[i]);
    case InputType::F32: break;
  }
  return p32[i];
}

/// Inputs and outputs of every head, packed head after head, row-major.
struct FlashParams {
  int heads = 0, nq = 0, nk = 0, dk = 0, dv = 0;
  float scale = 1.0f;
  const float* q = nullptr;     // [heads, nq, dk]
  const float* k = nullptr;     // [heads, nk, dk]
  const float* v = nullptr;     // [heads, nk, dv]
  InputType inputs = InputType::F32;  // F16/BF16: q16, k16, v16 hold them instead
  const uint16_t* q16 = nullptr;
  const uint16_t* k16 = nullptr;
  const uint16_t* v16 = nullptr;
  const float* bias = nullptr;  // [heads, nq, nk] or null
  MaskView mask;                // numTerms == 0: nothing masked
  const uint8_t* tiles = nullptr;  // [flashQueryBlocks, numKeyBlocks] TileKind, null: all allowed
  int br = 32, bc = 32;         // query rows and keys per tile
  int group = 1;                // query heads per K/V head: k, v hold heads / group heads
  bool causal = false;          // j <= i as well as the mask (self-attention, nq == nk)
  float* out = nullptr;         // [heads, nq, dv]
  float* entropy = nullptr;     // [heads, nq]
  float* rowMax = nullptr;      // [heads, nq] (-inf for a fully masked row)
  float* rowSum = nullptr;      // [heads, nq] normalizer l relative to rowMax (0: fully masked)
};

ATTN_HD_INLINE int numBlocks(int n, int b) { return (n + b - 1) / b; }

/// Query positions of one head in a tile: the br rows are shared by the group's heads,
/// head g of the group in rows [g * qRows, (g + 1) * qRows); rows past group * qRows idle.
ATTN_HD_INLINE int flashQueryRows(const FlashParams& p) {
  const int g = p.group > 1 ? p.group : 1;
  return p.br / g > 0 ? p.br / g : 1;
}
/// The launch grid: query blocks (x) by K/V heads (y).
ATTN_HD_INLINE int flashQueryBlocks(const FlashParams& p) { return numBlocks(p.nq, flashQueryRows(p)); }
ATTN_HD_INLINE int flashKvHeads(const FlashParams& p) { return p.group > 1 ? p.heads / p.group : p.heads; }

/// Tile row r of block (kvHead, qb): its query head and position; false for an idle row.
ATTN_HD_INLINE bool flashTileRow(const FlashParams& p, int kvHead, int qb, int r, int& head, int& i) {
  const int rows = flashQueryRows(p), g = r / rows, group = p.group > 1 ? p.group : 1;
  head = kvHead * group + g;
  i = qb * rows + r % rows;
  return g < group && i < p.nq;
}

/// Causal classification of the block's query rows against key tile kb, combined with the
/// mask's own (tiles): AllMasked when either is, AllAllowed when both are.
ATTN_HD_INLINE TileKind flashTileKind(const FlashParams& p, int qb, int kb, int numKb) {
  TileKind kind =
      p.tiles ? static_cast<TileKind>(p.tiles[static_cast<size_t>(qb) * numKb + kb]) : TileKind::AllAllowed;
  if (!p.causal || kind == TileKind::AllMasked) return kind;
  const int rows = flashQueryRows(p), iFirst = qb * rows;
  const int iLast = (iFirst + rows < p.nq ? iFirst + rows : p.nq) - 1;
  const int jFirst = kb * p.bc, jLast = (jFirst + p.bc < p.nk ? jFirst + p.bc : p.nk) - 1;
  if (jFirst > iLast) return TileKind::AllMasked;
  if (jLast <= iFirst) return kind;
  return TileKind::Mixed;
}

ATTN_HD_INLINE bool flashCellAllowed(const FlashParams& p, TileKind kind, int i, int j) {
  if (kind != TileKind::Mixed) return true;
  if (p.causal && j > i) return false;
  return p.mask.numTerms == 0 || maskAllowed(p.mask, i, j);
}

/// Row strides in shared memory: one float of padding per row of the key tile
/// and of the score tile, so the threads of a warp, which read one row each
/// (scores: one key row per thread; row update: one score row per thread),
/// hit 32 different banks instead of one.
ATTN_HD_INLINE int keyStride(int dk) { return dk + 1; }
ATTN_HD_INLINE int scoreStride(int bc) { return bc + 1; }

/// Shared memory of one block: doubles first (alignment), then floats.
struct FlashShared {
  double* l;      // [br]
  double* t;      // [br]
  float* m;       // [br] running max
  float* alpha;   // [br] rescale of the output for the current tile
  float* q;       // [br, dk] scaled queries
  float* k;       // [bc, keyStride(dk)]
  float* v;       // [bc, dv]
  float* s;       // [br, scoreStride(bc)] scores, then e^(s - m)
  float* o;       // [br, dv] running (unnormalized) output
};

ATTN_HD_INLINE size_t flashSharedBytes(int br, int bc, int dk, int dv) {
  const size_t doubles = 2 * static_cast<size_t>(br);
  const size_t floats = 2 * static_cast<size_t>(br) + static_cast<size_t>(br) * dk +
                        static_cast<size_t>(bc) * keyStride(dk) + static_cast<size_t>(bc) * dv +
                        static_cast<size_t>(br) * scoreStride(bc) + static_cast<size_t>(br) * dv;
  return doubles * sizeof(double) + floats * sizeof(float);
}

ATTN_HD_INLINE FlashShared flashSharedLayout(void* base, int br, int bc, int dk, int dv) {
  FlashShared sh;
  double* d = static_cast<double*>(base);
  sh.l = d;
  sh.t = d + br;
  float* f = reinterpret_cast<float*>(d + 2 * br);
  sh.m = f;
  sh.alpha = sh.m + br;
  sh.q = sh.alpha + br;
  sh.k = sh.q + static_cast<size_t>(br) * dk;
  sh.v = sh.k + static_cast<size_t>(bc) * keyStride(dk);
  sh.s = sh.v + static_cast<size_t>(bc) * dv;
  sh.o = sh.s + static_cast<size_t>(br) * scoreStride(bc);
  return sh;
}

/// A launch shape: tile sizes, threads per block and shared bytes.
struct TilePlan {
  int br = 0, bc = 0, threads = 0;
  size_t sharedBytes = 0;
  bool ok = false;
};

/// The largest square tile (64, 32 or 16) whose shared memory fits `maxShared`
/// bytes (the device's opt-in limit per block); ok = false when none fits.
ATTN_HD_INLINE TilePlan chooseFlashTile(int dk, int dv, size_t maxShared) {
  const int sizes[3] = {64, 32, 16};
  for (int n = 0; n < 3; ++n) {
    TilePlan p;
    p.br = p.bc = sizes[n];
    p.threads = sizes[n] >= 64 ? 256 : 128;
    p.sharedBytes = flashSharedBytes(p.br, p.bc, dk, dv);
    if (p.sharedBytes <= maxShared) {
      p.ok = true;
      return p;
    }
  }
  return TilePlan{};
}

ATTN_HD_INLINE void flashLoadQuery(const FlashParams& p, const FlashShared& sh, int kvHead, int qb, int tid,
                                   int threads) {
  for (int idx = tid; idx < p.br * p.dk; idx += threads) {
    const int r = idx / p.dk, c = idx % p.dk;
    int head = 0, i = 0;
    const bool live = flashTileRow(p, kvHead, qb, r, head, i);
    const size_t at = (static_cast<size_t>(head) * p.nq + (live ? i : 0)) * p.dk + c;
    sh.q[idx] = live ? loadInput(p.q, p.q16, p.inputs, at) * p.scale : 0.0f;
  }
  for (int idx = tid; idx < p.br * p.dv; idx += threads) sh.o[idx] = 0.0f;
  for (int r = tid; r < p.br; r += threads) {
    sh.m[r] = negInfF();
    sh.l[r] = 0.0;
    sh.t[r] = 0.0;
    sh.alpha[r] = 1.0f;
  }
}

ATTN_HD_INLINE void flashLoadKeys(const FlashParams& p, const FlashShared& sh, int head, int kb, int tid,
                                  int threads) {
  const int j0 = kb * p.bc;
  const size_t k0 = (static_cast<size_t>(head) * p.nk) * p.dk, v0 = (static_cast<size_t>(head) * p.nk) * p.dv;
  for (int idx = tid; idx < p.bc * p.dk; idx += threads) {
    const int c = idx / p.dk, d = idx % p.dk, j = j0 + c;
    sh.k[static_cast<size_t>(c) * keyStride(p.dk) + d] =
        j < p.nk ? loadInput(p.k, p.k16, p.inputs, k0 + static_cast<size_t>(j) * p.dk + d) : 0.0f;
  }
  for (int idx = tid; idx < p.bc * p.dv; idx += threads) {
    const int c = idx / p.dv, d = idx % p.dv, j = j0 + c;
    sh.v[idx] = j < p.nk ? loadInput(p.v, p.v16, p.inputs, v0 + static_cast<size_t>(j) * p.dv + d) : 0.0f;
  }
}

/// Each thread computes 4 x 4 cells at a time (rows x keys, or rows x output
/// columns below): 8 shared-memory loads feed 16 multiply-adds, where one cell
/// at a time needs 2 loads per multiply-add. Tile sides are multiples of 4.
inline constexpr int kMicro = 4;

/// s = scale q . k (+ bias); -inf where masked or outside the matrix.
ATTN_HD_INLINE void flashScoreTile(const FlashParams& p, const FlashShared& sh, int kvHead, int qb, int kb,
                                   TileKind kind, int tid, int threads) {
  const int j0 = kb * p.bc, colBlocks = p.bc / kMicro;
  const int ks = keyStride(p.dk), ss = scoreStride(p.bc);
  for (int t = tid; t < (p.br / kMicro) * colBlocks; t += threads) {
    const int r0 = (t / colBlocks) * kMicro, c0 = (t % colBlocks) * kMicro;
    float acc[kMicro][kMicro] = {};
    for (int d = 0; d < p.dk; ++d) {
      float qv[kMicro], kv[kMicro];
      for (int a = 0; a < kMicro; ++a) qv[a] = sh.q[static_cast<size_t>(r0 + a) * p.dk + d];
      for (int b = 0; b < kMicro; ++b) kv[b] = sh.k[static_cast<size_t>(c0 + b) * ks + d];
      for (int a = 0; a < kMicro; ++a)
        for (int b = 0; b < kMicro; ++b) acc[a][b] += qv[a] * kv[b];
    }
    for (int a = 0; a < kMicro; ++a)
      for (int b = 0; b < kMicro; ++b) {
        int head = 0, i = 0;
        const bool live = flashTileRow(p, kvHead, qb, r0 + a, head, i);
        const int j = j0 + c0 + b;
        float s = negInfF();
        if (live && j < p.nk && flashCellAllowed(p, kind, i, j)) {
          s = acc[a][b];
          if (p.bias) s += p.bias[(static_cast<size_t>(head) * p.nq + i) * p.nk + j];
        }
        sh.s[static_cast<size_t>(r0 + a) * ss + c0 + b] = s;
      }
  }
}

/// Online softmax update of each row over the tile; s becomes e^(s - m_new).
ATTN_HD_INLINE void flashRowUpdate(const FlashParams& p, const FlashShared& sh, int tid, int threads) {
  for (int r = tid; r < p.br; r += threads) {
    float* s = sh.s + static_cast<size_t>(r) * scoreStride(p.bc);
    float tileMax = negInfF();
    for (int c = 0; c < p.bc; ++c) tileMax = s[c] > tileMax ? s[c] : tileMax;
    if (!(tileMax >= kMaskedBelowF)) {  // the row sees nothing in this tile
      for (int c = 0; c < p.bc; ++c) s[c] = 0.0f;
      sh.alpha[r] = 1.0f;
      continue;
    }
    const float mOld = sh.m[r];
    const float mNew = mOld > tileMax ? mOld : tileMax;
    double bl = 0.0, bt = 0.0;
    for (int c = 0; c < p.bc; ++c) {
      if (!(s[c] >= kMaskedBelowF)) {
        s[c] = 0.0f;
        continue;
      }
      const float d = s[c] - mNew, e = expf(d);
      s[c] = e;
      bl += e;
      bt += static_cast<double>(e) * d;
    }
    if (!(mOld >= kMaskedBelowF)) {  // first tile with an allowed key
      sh.l[r] = bl;
      sh.t[r] = bt;
      sh.alpha[r] = 0.0f;  // the output so far is 0
    } else {
      double alpha = 1.0;
      if (mNew > mOld) {
        const double diff = static_cast<double>(mOld) - mNew;
        alpha = exp(diff);
        sh.t[r] = alpha * (sh.t[r] + diff * sh.l[r]);
        sh.l[r] *= alpha;
      }
      sh.l[r] += bl;
      sh.t[r] += bt;
      sh.alpha[r] = static_cast<float>(alpha);
    }
    sh.m[r] = mNew;
  }
}

/// o = alpha o + e V for the tile, 4 rows x 4 output columns per step.
ATTN_HD_INLINE void flashAccumulate(const FlashParams& p, const FlashShared& sh, int tid, int threads) {
  const int colBlocks = (p.dv + kMicro - 1) / kMicro, ss = scoreStride(p.bc);
  for (int t = tid; t < (p.br / kMicro) * colBlocks; t += threads) {
    const int r0 = (t / colBlocks) * kMicro, d0 = (t % colBlocks) * kMicro;
    const int width = p.dv - d0 < kMicro ? p.dv - d0 : kMicro;
    float acc[kMicro][kMicro] = {};
    for (int c = 0; c < p.bc; ++c) {
      float e[kMicro], vv[kMicro] = {};
      for (int a = 0; a < kMicro; ++a) e[a] = sh.s[static_cast<size_t>(r0 + a) * ss + c];
      for (int b = 0; b < width; ++b) vv[b] = sh.v[static_cast<size_t>(c) * p.dv + d0 + b];
      for (int a = 0; a < kMicro; ++a)
        for (int b = 0; b < kMicro; ++b) acc[a][b] += e[a] * vv[b];
    }
    for (int a = 0; a < kMicro; ++a)
      for (int b = 0; b < width; ++b) {
        float& o = sh.o[static_cast<size_t>(r0 + a) * p.dv + d0 + b];
        o = o * sh.alpha[r0 + a] + acc[a][b];
      }
  }
}

ATTN_HD_INLINE void flashFinish(const FlashParams& p, const FlashShared& sh, int kvHead, int qb, int tid,
                                int threads) {
  for (int idx = tid; idx < p.br * p.dv; idx += threads) {
    const int r = idx / p.dv, d = idx % p.dv;
    int head = 0, i = 0;
    if (!flashTileRow(p, kvHead, qb, r, head, i)) continue;
    const double l = sh.l[r];
    p.out[(static_cast<size_t>(head) * p.nq + i) * p.dv + d] =
        l > 0 ? static_cast<float>(sh.o[idx] * (1.0 / l)) : 0.0f;
  }
  for (int r = tid; r < p.br; r += threads) {
    int head = 0, i = 0;
    if (!flashTileRow(p, kvHead, qb, r, head, i)) continue;
    const size_t at = static_cast<size_t>(head) * p.nq + i;
    const double l = sh.l[r];
    if (l > 0) {
      const double h = log(l) - sh.t[r] / l;
      p.entropy[at] = static_cast<float>(h > 0 ? h : 0.0);
      p.rowMax[at] = sh.m[r];
      p.rowSum[at] = static_cast<float>(l);
    } else {
      p.entropy[at] = 0.0f;
      p.rowMax[at] = negInfF();
      p.rowSum[at] = 0.0f;
    }
  }
}

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
/// One block's whole pass: K/V head kvHead (the query head itself when group is 1), query
/// block qb of flashQueryRows(p) positions. Exec: threads() and each(f) = run f(tid) for
/// every thread of the block, then a barrier.
template <class Exec>
ATTN_HD void flashBlock(const FlashParams& p, const FlashShared& sh, int kvHead, int qb, Exec& ex) {
  const int threads = ex.threads();
  ex.each([&](int tid) { flashLoadQuery(p, sh, kvHead, qb, tid, threads); });
  const int numKb = numBlocks(p.nk, p.bc);
  for (int kb = 0; kb < numKb; ++kb) {
    const TileKind kind = flashTileKind(p, qb, kb, numKb);
    if (kind == TileKind::AllMasked) continue;  // uniform over the block: barriers stay matched
    ex.each([&](int tid) { flashLoadKeys(p, sh, kvHead, kb, tid, threads); });
    ex.each([&](int tid) { flashScoreTile(p, sh, kvHead, qb, kb, kind, tid, threads); });
    ex.each([&](int tid) { flashRowUpdate(p, sh, tid, threads); });
    ex.each([&](int tid) { flashAccumulate(p, sh, tid, threads); });
  }
  ex.each([&](int tid) { flashFinish(p, sh, kvHead, qb, tid, threads); });
}

/// The materialized weights of the tiled path, one cell: w = e^(s + bias - m) / l
/// from the flash pass's row max and normalizer; 0 where masked. Also the
/// scaled logit scale * q . k (no bias, no mask), as the CPU path keeps it.
struct WeightsParams {
  FlashParams f;                 // q, k, bias, mask, scale, dims; rowMax/rowSum read
  float* weights = nullptr;      // [heads, nq, nk]
  float* scaledLogits = nullptr; // [heads, nq, nk] or null
};

ATTN_HD_INLINE void weightCell(const WeightsParams& w, int head, int i, int j) {
  const FlashParams& p = w.f;
  const int kvHead = p.group > 1 ? head / p.group : head;
  const size_t qr = (static_cast<size_t>(head) * p.nq + i) * p.dk,
               kr = (static_cast<size_t>(kvHead) * p.nk + j) * p.dk;
  float acc = 0.0f;
  for (int d = 0; d < p.dk; ++d)
    acc += (loadInput(p.q, p.q16, p.inputs, qr + d) * p.scale) * loadInput(p.k, p.k16, p.inputs, kr + d);
  const size_t at = (static_cast<size_t>(head) * p.nq + i) * p.nk + j;
  if (w.scaledLogits) w.scaledLogits[at] = acc;
  const size_t row = static_cast<size_t>(head) * p.nq + i;
  const float l = p.rowSum[row];
  float weight = 0.0f;
  if (l > 0 && !(p.causal && j > i) && (p.mask.numTerms == 0 || maskAllowed(p.mask, i, j))) {
    const float s = p.bias ? acc + p.bias[at] : acc;
    if (s >= kMaskedBelowF) weight = expf(s - p.rowMax[row]) * (1.0f / l);
  }
  w.weights[at] = weight;
}

/// The naive path's softmax of one row of raw scores: scaled, biased, masked,
/// normalized; writes the weights (exactly 0 where masked), entropy, max, sum.
struct SoftmaxParams {
  int heads = 0, nq = 0, nk = 0;
  float scale = 1.0f;
  const float* raw = nullptr;   // [heads, nq, nk] q' . k'
  const float* bias = nullptr;  // [heads, nq, nk] or null
  MaskView mask;
  float* weights = nullptr;     // [heads, nq, nk]
  float* entropy = nullptr;     // [heads, nq]
  float* rowMax = nullptr;
  float* rowSum = nullptr;
};

ATTN_HD_INLINE float maskedLogit(const SoftmaxParams& p, int head, int i, int j) {
  const size_t at = (static_cast<size_t>(head) * p.nq + i) * p.nk + j;
  if (p.mask.numTerms > 0 && !maskAllowed(p.mask, i, j)) return negInfF();
  float s = p.raw[at] * p.scale;
  if (p.bias) s += p.bias[at];
  return s;
}

ATTN_HD_INLINE void softmaxRow(const SoftmaxParams& p, int head, int i) {
  const size_t row = static_cast<size_t>(head) * p.nq + i;
  float* w = p.weights + row * p.nk;
  float m = negInfF();
  for (int j = 0; j < p.nk; ++j) {
    const float s = maskedLogit(p, head, i, j);
    m = s > m ? s : m;
  }
  if (!(m >= kMaskedBelowF)) {  // every key masked: zeros, flagged by the caller
    for (int j = 0; j < p.nk; ++j) w[j] = 0.0f;
    p.entropy[row] = 0.0f;
    p.rowMax[row] = negInfF();
    p.rowSum[row] = 0.0f;
    return;
  }
  double l = 0.0, t = 0.0;
  for (int j = 0; j < p.nk; ++j) {
    const float s = maskedLogit(p, head, i, j);
    if (!(s >= kMaskedBelowF)) {
      w[j] = 0.0f;
      continue;
    }
    const float d = s - m, e = expf(d);
    w[j] = e;
    l += e;
    t += static_cast<double>(e) * d;
  }
  const float inv = static_cast<float>(1.0 / l);
  for (int j = 0; j < p.nk; ++j) w[j] *= inv;
  const double h = log(l) - t / l;
  p.entropy[row] = static_cast<float>(h > 0 ? h : 0.0);
  p.rowMax[row] = m;
  p.rowSum[row] = static_cast<float>(l);
}

}  // namespace attn::gpu
