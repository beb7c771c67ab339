#include "attn/models/products/token_gemm.h"

#include "attn/models/products/scratch.h"

#if defined(__AVX512F__)
#include <immintrin.h>

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif
#endif

namespace attn::models {

#if defined(__AVX512F__)
namespace {

using Floats = ScratchFloats;  // written in full before read (packRowGroup, the tile kernels)

constexpr int kTileRows = 32;         // two vectors of tokens per register tile
constexpr int kTileCols = 12;         // 2 x 12 accumulators + 2 token vectors of 32 registers
constexpr int64_t kDepthBlock = 384;  // W's 12 x 384 block (18 KB) stays in L1 for every tile
constexpr int64_t kMaxTokens = 1024;  // scratch bounded: tokens^T and the output^T per thread

/// The 16 x 16 transpose of r[0..15] in place (unpack, then 128-bit lane shuffles).
inline void transpose16(__m512 r[16]) {
  __m512 t[16], u[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    u[4 * i] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    u[4 * i + 1] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
    u[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    u[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 4; ++i) {
      t[8 * h + i] = _mm512_shuffle_f32x4(u[8 * h + i], u[8 * h + 4 + i], 0x88);
      t[8 * h + 4 + i] = _mm512_shuffle_f32x4(u[8 * h + i], u[8 * h + 4 + i], 0xDD);
    }
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[8 + i], 0x88);
    r[8 + i] = _mm512_shuffle_f32x4(t[i], t[8 + i], 0xDD);
  }
}

/// Rows [16 g, 16 g + 16) of x (zeros past n) into the tile layout: tile g / 2 is [K][width]
/// (width 32, or 16 for a last half tile), these rows at column 16 (g % 2).
void packRowGroup(const ConstMatRef& x, int64_t g, int64_t paddedRows, float* xt) {
  const int64_t n = x.rows(), K = x.cols(), tile = g / 2, r0 = g * 16;
  const int64_t width = std::min<int64_t>(kTileRows, paddedRows - tile * kTileRows);
  float* dst = xt + tile * kTileRows * K + (g % 2) * 16;
  __m512 r[16];
  for (int64_t k = 0; k < K; k += 16) {
    for (int i = 0; i < 16; ++i)
      r[i] = r0 + i < n ? _mm512_loadu_ps(x.data() + (r0 + i) * x.outerStride() + k) : _mm512_setzero_ps();
    transpose16(r);
    for (int i = 0; i < 16; ++i) _mm512_storeu_ps(dst + (k + i) * width, r[i]);
  }
}

/// The next 12 x depth block of W, prefetched while the first tile multiplies the current one: its
/// rows are 1.5 KB runs 3-12 KB apart, too short for the hardware prefetcher to reach DRAM's
/// bandwidth on its own (the first tile then waited on every line).
/// Conv1D's W [K, out] (depthBytes set): the next block is 48 bytes of each of its depth rows,
/// `depthBytes` apart, one row a depth step (its first and last byte: it may span two lines).
struct Prefetch {
  const char* at = nullptr;  // row 0 of the block, or null
  int64_t rowBytes = 0, bytesPerValue = 4;
  int64_t depthBytes = 0;
};

/// ct[c][rows] (+)= sum over k of xt[k][rows] * w[c][k]: V vectors of tokens x C outputs; depth is
/// a multiple of 16.
template <int V, int C>
void tileKernel(const float* xt, const float* w, int64_t ldw, int64_t depth, float* ct, int64_t ldc,
                bool accumulate, Prefetch pf) {
  __m512 acc[V][C];
#pragma GCC unroll 16
  for (int c = 0; c < C; ++c)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v)
      acc[v][c] = accumulate ? _mm512_loadu_ps(ct + c * ldc + 16 * v) : _mm512_setzero_ps();
  for (int64_t k = 0; k < depth; ++k) {
    if (pf.depthBytes != 0) {
      _mm_prefetch(pf.at + k * pf.depthBytes, _MM_HINT_T1);
      _mm_prefetch(pf.at + k * pf.depthBytes + 4 * kTileCols - 1, _MM_HINT_T1);
    } else if (pf.at && k % 16 == 0) {
      for (int c = 0; c < kTileCols; ++c)
        _mm_prefetch(pf.at + c * pf.rowBytes + k * pf.bytesPerValue, _MM_HINT_T0);
    }
    __m512 a[V];
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) a[v] = _mm512_loadu_ps(xt + k * 16 * V + 16 * v);
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) {
      const __m512 b = _mm512_set1_ps(w[c * ldw + k]);
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) acc[v][c] = _mm512_fmadd_ps(a[v], b, acc[v][c]);
    }
  }
#pragma GCC unroll 16
  for (int c = 0; c < C; ++c)
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) _mm512_storeu_ps(ct + c * ldc + 16 * v, acc[v][c]);
}

using Kernel = void (*)(const float*, const float*, int64_t, int64_t, float*, int64_t, bool, Prefetch);

template <int V, int... C>
constexpr std::array<Kernel, sizeof...(C)> kernelsFor(std::integer_sequence<int, C...>) {
  return {&tileKernel<V, C + 1>...};
}

Kernel kernelFor(int vectors, int cols) {
  static constexpr auto one = kernelsFor<1>(std::make_integer_sequence<int, kTileCols>{});
  static constexpr auto two = kernelsFor<2>(std::make_integer_sequence<int, kTileCols>{});
  return (vectors == 2 ? two : one)[static_cast<size_t>(cols - 1)];
}

/// Conv1D's W [K, out] (GPT-2): the 12 x depth block of output columns [j0, j0 + cols) and depth
/// [k0, k0 + depth) gathered into the panel's rows, as the BF16 path decodes them: a column of W
/// is strided by `out`, and broadcasting it in place would touch a page per depth step. Sixteen
/// depth steps at a time: their rows' `cols` values as one masked load each (masked lanes do not
/// fault past the tensor's end), transposed, so each column's 16 values are one store. Copied
/// value by value, the gather took a quarter of GPT-2's layer time at 128 tokens.
void gatherConv1DPanel(const float* w, int64_t out, int64_t k0, int64_t depth, int64_t j0, int cols,
                       float* panel) {
  const auto mask = static_cast<__mmask16>((1u << cols) - 1u);
  __m512 r[16];
  for (int64_t k = 0; k < depth; k += 16) {  // depth is a multiple of 16
    const float* row = w + (k0 + k) * out + j0;
    for (int i = 0; i < 16; ++i) r[i] = _mm512_maskz_loadu_ps(mask, row + i * out);
    transpose16(r);
    for (int c = 0; c < cols; ++c) _mm512_storeu_ps(panel + c * depth + k, r[c]);
  }
}

/// The output columns [c0, c1) of this thread: ct [c1 - c0][paddedRows] (column-major).
void multiplyColumns(const float* xt, const LinearWeight& l, int64_t paddedRows, int64_t c0, int64_t c1,
                     Floats& ct, Floats& panel) {
  const WeightTensor& W = l.w;
  const int64_t K = l.in(), out = l.out(), tiles = (paddedRows + kTileRows - 1) / kTileRows;
  ct.resize(static_cast<size_t>((c1 - c0) * paddedRows));
  if (W.isBf16() || l.inOut) panel.resize(static_cast<size_t>(kTileCols * kDepthBlock));
  for (int64_t k0 = 0; k0 < K; k0 += kDepthBlock) {
    const int64_t depth = std::min(kDepthBlock, K - k0);
    for (int64_t j0 = c0; j0 < c1; j0 += kTileCols) {
      const int cols = static_cast<int>(std::min<int64_t>(kTileCols, c1 - j0));
      const float* w = panel.data();  // f32 weights are read in place (data is null for BF16)
      int64_t ldw = depth;
      if (W.isBf16()) {  // the 12 x depth block of W decoded once, used by every tile
        for (int c = 0; c < cols; ++c)
          bf16ToFloat(W.bf16 + 2 * ((j0 + c) * K + k0), panel.data() + c * depth, depth);
      } else if (l.inOut) {
        gatherConv1DPanel(W.data, out, k0, depth, j0, cols, panel.data());
      } else {
        w = W.data + j0 * K + k0, ldw = K;
      }
      Prefetch next;
      if (j0 + kTileCols + kTileCols <= c1 && l.inOut) {  // (Conv1D weights are F32 here)
        next.at = reinterpret_cast<const char*>(W.data + k0 * out + j0 + kTileCols);
        next.depthBytes = 4 * out;
      } else if (j0 + kTileCols + kTileCols <= c1) {
        const int64_t bytes = W.isBf16() ? 2 : 4;
        next = {(W.isBf16() ? W.bf16 : reinterpret_cast<const char*>(W.data)) +
                    bytes * ((j0 + kTileCols) * K + k0),
                bytes * K, bytes};
      }
      for (int64_t t = 0; t < tiles; ++t) {
        const int64_t width = std::min<int64_t>(kTileRows, paddedRows - t * kTileRows);
        kernelFor(static_cast<int>(width / 16), cols)(xt + t * kTileRows * K + k0 * width, w, ldw, depth,
                                                      ct.data() + (j0 - c0) * paddedRows + t * kTileRows,
                                                      paddedRows, k0 > 0, t == 0 ? next : Prefetch{});
      }
    }
  }
}

/// y[:, c0:c1] = ct^T + b[c0:c1], 16 x 16 blocks at a time, a band of 16 rows of y at a time: by
/// column blocks, each 64-byte store went to another row of y (12 KB apart for 3,072 columns), a
/// page and a TLB entry per store.
void unpackColumns(const Floats& ct, int64_t paddedRows, int64_t c0, int64_t c1, const float* bias, Mat& y) {
  const int64_t n = y.rows();
  __m512 r[16];
  for (int64_t i = 0; i < n; i += 16) {
    for (int64_t j = c0; j < c1; j += 16) {
      const int cols = static_cast<int>(std::min<int64_t>(16, c1 - j));
      const __mmask16 mask = static_cast<__mmask16>((1u << cols) - 1u);
      const __m512 b = bias ? _mm512_maskz_loadu_ps(mask, bias + j) : _mm512_setzero_ps();
      for (int c = 0; c < 16; ++c)
        r[c] = c < cols ? _mm512_loadu_ps(ct.data() + (j - c0 + c) * paddedRows + i) : _mm512_setzero_ps();
      transpose16(r);
      for (int64_t v = 0; v < 16 && i + v < n; ++v)
        _mm512_mask_storeu_ps(&y(i + v, j), mask, _mm512_add_ps(r[v], b));
    }
  }
}

}  // namespace

bool linearTokenGemm(const ConstMatRef& x, const LinearWeight& l, Mat& y) {
  const WeightTensor& W = l.w;
  const int64_t n = x.rows(), K = x.cols(), out = l.out();
  if ((W.data == nullptr && !W.isBf16()) || (l.inOut && W.isBf16()) || l.in() != K || n < 16 ||
      n > kMaxTokens || K == 0 || K % 16 != 0 || out < kTileCols)
    return false;
  const int64_t paddedRows = (n + 15) / 16 * 16, groups = paddedRows / 16;
  y.resize(n, out);
  thread_local Floats tokens;  // kept across calls: first touch of fresh pages is expensive
  tokens.resize(static_cast<size_t>(paddedRows * K));
  float* xt = tokens.data();
  const int64_t colGroups = (out + kTileCols - 1) / kTileCols;
  const int threads = static_cast<int>(std::min<int64_t>(
      colGroups,
      threadsFor(2.0 * static_cast<double>(n) * static_cast<double>(K) * static_cast<double>(out))));
  const float* bias = l.b.empty() ? nullptr : l.b.data;
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
#ifdef _OPENMP
    const int t = omp_get_thread_num(), T = omp_get_num_threads();
#else
    const int t = 0, T = 1;
#endif
#pragma omp for schedule(static)
    for (int64_t g = 0; g < groups; ++g) packRowGroup(x, g, paddedRows, xt);
    thread_local Floats ct, panel;
    const int64_t c0 = std::min(out, colGroups * t / T * kTileCols);
    const int64_t c1 = std::min(out, colGroups * (t + 1) / T * kTileCols);
    if (c1 > c0) {
      multiplyColumns(xt, l, paddedRows, c0, c1, ct, panel);
      unpackColumns(ct, paddedRows, c0, c1, bias, y);
    }
  }
  return true;
}

#else

bool linearTokenGemm(const ConstMatRef&, const LinearWeight&, Mat&) { return false; }

#endif

}  // namespace attn::models
