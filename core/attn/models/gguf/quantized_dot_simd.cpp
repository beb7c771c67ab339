#include "attn/models/gguf/quantized_dot_simd.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <vector>

#include "attn/io/float_convert.h"
#include "attn/models/gguf/group_prefetch.h"
#include "attn/models/gguf/quantized_dot.h"
#include "attn/models/gguf/simd_transpose.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace attn::models::gguf {

#if defined(__AVX2__)
namespace {

// A vector holds one int32 / f32 lane per output row. The weights of kLanes rows are repacked
// so that one load gives each row's 4 consecutive int8 values of a block; the token's matching
// 4 values are broadcast, and one 4-way integer dot product (VNNI vpdpbusd, or maddubs +
// madd) adds them into every row's lane. After a block's 8 loads each lane holds the exact
// integer sum of that row's block, which is then scaled in f32 as in the reference.
#if defined(__AVX512F__) && defined(__AVX512BW__)
constexpr int kLanes = 16;
constexpr int kTokens = 8;  // tokens per register tile: 2 x 8 accumulators of 32 registers
using VecI = __m512i;
using VecF = __m512;
inline VecI loadI(const void* p) { return _mm512_loadu_si512(p); }
inline VecI setI(int32_t v) { return _mm512_set1_epi32(v); }
inline VecF zeroF() { return _mm512_setzero_ps(); }
inline VecF loadF(const float* p) { return _mm512_loadu_ps(p); }
inline VecF setF(float v) { return _mm512_set1_ps(v); }
inline VecF mulF(VecF a, VecF b) { return _mm512_mul_ps(a, b); }
inline VecF addF(VecF a, VecF b) { return _mm512_add_ps(a, b); }
inline VecF toF(VecI a) { return _mm512_cvtepi32_ps(a); }
inline void storeF(float* p, VecF v) { _mm512_storeu_ps(p, v); }
#if defined(__AVX512VNNI__)
// u8 x s8: the weights stored as w + 128 (unsigned), the tokens' int8 as the signed operand;
// sum (w + 128) x = sum w x + 128 sum x, so each block's sum starts at -128 sum x.
constexpr bool kOffsetWeights = true;
struct GroupWeights {
  VecI u;
};
inline GroupWeights groupWeights(const int8_t* p) { return {loadI(p)}; }
inline VecI dot4(VecI acc, const GroupWeights& w, VecI x) { return _mm512_dpbusd_epi32(acc, w.u, x); }
#else
// maddubs is u8 x s8 too, but saturates its 16-bit pair sums: |w| x (x with w's sign) keeps
// each pair within 2 * 128 * 127 (ggml's mul_sum_i8_pairs).
constexpr bool kOffsetWeights = false;
struct GroupWeights {
  VecI u;
  __mmask64 negative;
};
inline GroupWeights groupWeights(const int8_t* p) {
  const VecI w = loadI(p);
  return {_mm512_abs_epi8(w), _mm512_movepi8_mask(w)};
}
inline VecI dot4(VecI acc, const GroupWeights& w, VecI x) {
  const VecI s = _mm512_mask_sub_epi8(x, w.negative, _mm512_setzero_si512(), x);
  return _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_maddubs_epi16(w.u, s), _mm512_set1_epi16(1)));
}
#endif
#else
constexpr int kLanes = 8;
constexpr int kTokens = 4;  // 2 x 4 accumulators of 16 registers
using VecI = __m256i;
using VecF = __m256;
inline VecI loadI(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline VecI setI(int32_t v) { return _mm256_set1_epi32(v); }
inline VecF zeroF() { return _mm256_setzero_ps(); }
inline VecF loadF(const float* p) { return _mm256_loadu_ps(p); }
inline VecF setF(float v) { return _mm256_set1_ps(v); }
inline VecF mulF(VecF a, VecF b) { return _mm256_mul_ps(a, b); }
inline VecF addF(VecF a, VecF b) { return _mm256_add_ps(a, b); }
inline VecF toF(VecI a) { return _mm256_cvtepi32_ps(a); }
inline void storeF(float* p, VecF v) { _mm256_storeu_ps(p, v); }
constexpr bool kOffsetWeights = false;
struct GroupWeights {
  VecI w, u;
};
inline GroupWeights groupWeights(const int8_t* p) {
  const VecI w = loadI(p);
  return {w, _mm256_abs_epi8(w)};
}
inline VecI dot4(VecI acc, const GroupWeights& w, VecI x) {
  const VecI s = _mm256_sign_epi8(x, w.w);
  return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(w.u, s), _mm256_set1_epi16(1)));
}
#endif

constexpr int64_t kBlock = 32, kBlockBytes = 34;

/// kLanes weight rows: block b's values 4g..4g+3 of row r at qs[((b * 8 + g) * kLanes + r) * 4]
/// (plus 128 for VNNI), its scale at dw[b * kLanes + r]; rows past the matrix's are zero.
struct RepackedRows {
  std::vector<int8_t> qs;
  std::vector<float> dw;
};

/// A whole group: each row's blocks read contiguously and transposed in registers so that one
/// store holds the same 4 values of every row (gathers of 16 rows at a large stride cost about
/// as much as the products themselves); the scales by one gather per block.
void gatherRows(const char* w, int64_t rowBytes, int64_t blocks, RepackedRows& p) {
#if defined(__AVX512F__) && defined(__AVX512BW__)
  const VecI at = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                     _mm512_set1_epi32(static_cast<int32_t>(rowBytes)));
  const auto halves = [&at](const char* base) {
    return _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_i32gather_epi32(at, base, 1)));
  };
  const VecI flip = _mm512_set1_epi8(static_cast<char>(0x80));
  const auto offset = [&flip](VecI v) { return kOffsetWeights ? _mm512_xor_si512(v, flip) : v; };
  constexpr int64_t kStep = 2;  // blocks per transpose: 2 x 32 bytes of each row
  const auto rowValues = [](const char* base) {
    const auto lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + 2));
    const auto hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + kBlockBytes + 2));
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
  };
#else
  const VecI at = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                     _mm256_set1_epi32(static_cast<int32_t>(rowBytes)));
  const auto halves = [&at](const char* base) {  // the low 16 bits of each lane: the f16 scale
    const VecI h = _mm256_i32gather_epi32(reinterpret_cast<const int*>(base), at, 1);
    const VecI low = _mm256_and_si256(h, _mm256_set1_epi32(0xFFFF));
    return _mm256_cvtph_ps(_mm_packus_epi32(_mm256_castsi256_si128(low), _mm256_extracti128_si256(low, 1)));
  };
  const auto offset = [](VecI v) { return v; };
  constexpr int64_t kStep = 1;
  const auto rowValues = [](const char* base) { return loadI(base + 2); };
#endif
  const int64_t whole = blocks / kStep * kStep;
  for (int64_t b = 0; b < blocks; ++b) storeF(p.dw.data() + b * kLanes, halves(w + b * kBlockBytes));
  for (int64_t b = 0; b < whole; b += kStep) {
    // kLanes rows are more streams than the hardware prefetcher follows: ask for each row's
    // next lines ahead (a prefetch past the mapping does not fault).
    if (b % 2 == 0)
      for (int64_t i = 0; i < kLanes; ++i)
        _mm_prefetch(w + i * rowBytes + (b + 16) * kBlockBytes, _MM_HINT_T0);
    VecI r[kLanes];
    for (int64_t i = 0; i < kLanes; ++i) r[i] = rowValues(w + i * rowBytes + b * kBlockBytes);
    transposeRowGroups(r);
    int8_t* dst = p.qs.data() + b * kBlock * kLanes;
    for (int64_t g = 0; g < kLanes; ++g) {
      const VecI v = offset(r[g]);
      std::memcpy(dst + g * kLanes * 4, &v, sizeof(VecI));
    }
  }
  for (int64_t b = whole; b < blocks; ++b)  // an odd last block (AVX-512: two per transpose)
    for (int64_t i = 0; i < kLanes; ++i)
      for (int64_t g = 0; g < 8; ++g) {
        int8_t* dst = p.qs.data() + (b * 8 + g) * kLanes * 4 + i * 4;
        std::memcpy(dst, w + i * rowBytes + b * kBlockBytes + 2 + 4 * g, 4);
        if (kOffsetWeights)
          for (int k = 0; k < 4; ++k) dst[k] = static_cast<int8_t>(static_cast<uint8_t>(dst[k]) ^ 0x80u);
      }
}

void repackRows(const char* w, int64_t rowBytes, int64_t rows, int64_t blocks, RepackedRows& p) {
  p.qs.resize(static_cast<size_t>(blocks * kBlock * kLanes));
  p.dw.resize(static_cast<size_t>(blocks * kLanes));
  // The gathers' offsets are int32: rows of up to 2^31 / 16 bytes (K up to about 4 billion / 17).
  if (rows == kLanes && rowBytes * kLanes < (int64_t{1} << 31)) return gatherRows(w, rowBytes, blocks, p);
  if (rows < kLanes) {
    std::fill(p.qs.begin(), p.qs.end(), int8_t{0});
    std::fill(p.dw.begin(), p.dw.end(), 0.0f);
  }
  for (int64_t r = 0; r < rows; ++r) {
    const char* row = w + r * rowBytes;
    for (int64_t b = 0; b < blocks; ++b) {
      const char* block = row + b * kBlockBytes;
      uint16_t h;
      std::memcpy(&h, block, 2);
      p.dw[static_cast<size_t>(b * kLanes + r)] = attn::halfToFloat(h);
      int8_t* dst = p.qs.data() + b * kBlock * kLanes + r * 4;
      for (int64_t g = 0; g < 8; ++g) std::memcpy(dst + g * kLanes * 4, block + 2 + 4 * g, 4);
    }
  }
  if (kOffsetWeights)
    for (int8_t& v : p.qs) v = static_cast<int8_t>(static_cast<uint8_t>(v) ^ 0x80u);
}

inline VecI broadcast4(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return setI(v);
}

/// y[t * ldy + r] for NT tokens from t0 and the group's first `lanes` rows.
template <int NT>
void tokenTile(const Q8Rows& x, int64_t t0, const RepackedRows& p, float* y, int64_t ldy, int64_t lanes) {
  const int64_t blocks = x.blocks();
  const int8_t* q[NT];
  const float* dx[NT];
  const int32_t* sx[NT];
  for (int t = 0; t < NT; ++t) {
    q[t] = x.q.data() + (t0 + t) * x.cols;
    dx[t] = x.d.data() + (t0 + t) * blocks;
    sx[t] = x.sum.data() + (t0 + t) * blocks;
  }
  VecF acc[NT];
  for (int t = 0; t < NT; ++t) acc[t] = zeroF();
  for (int64_t b = 0; b < blocks; ++b) {
    VecI s[NT];
    for (int t = 0; t < NT; ++t) s[t] = setI(kOffsetWeights ? -128 * sx[t][b] : 0);
    const int8_t* wq = p.qs.data() + b * kBlock * kLanes;
    for (int g = 0; g < 8; ++g) {
      const GroupWeights gw = groupWeights(wq + g * kLanes * 4);
      for (int t = 0; t < NT; ++t) s[t] = dot4(s[t], gw, broadcast4(q[t] + b * kBlock + 4 * g));
    }
    const VecF dw = loadF(p.dw.data() + b * kLanes);
    for (int t = 0; t < NT; ++t) acc[t] = addF(acc[t], mulF(toF(s[t]), mulF(setF(dx[t][b]), dw)));
  }
  for (int t = 0; t < NT; ++t) {
    float* dst = y + (t0 + t) * ldy;
    if (lanes == kLanes) {
      storeF(dst, acc[t]);
    } else {
      alignas(64) float lane[kLanes];
      storeF(lane, acc[t]);
      std::copy(lane, lane + lanes, dst);
    }
  }
}

/// Fewer tokens than this take rowDot (no repack): a generation step, or the output head at the
/// last position, would otherwise reorder every weight for one use.
constexpr int64_t kDirectTokens = 4;

/// One weight row by token t, without the repack: per block the exact integer sum of w x
/// (|w| by x with w's sign, pairs at most 2 x 128 x 127: the activations never hold -128) and
/// acc + float(sum) * (dx * dw), the tiles' f32 operations in the same order.
float rowDot(const char* row, const Q8Rows& x, int64_t t) {
  const int64_t blocks = x.blocks();
  const int8_t* q = x.q.data() + t * x.cols;
  const float* dx = x.d.data() + t * blocks;
  const __m256i ones = _mm256_set1_epi16(1);
  float acc = 0.0f;
  for (int64_t b = 0; b < blocks; ++b) {
    const char* block = row + b * kBlockBytes;
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 2));
    const __m256i xv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + b * kBlock));
    const __m256i p =
        _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(w), _mm256_sign_epi8(xv, w)), ones);
    const __m128i h = _mm_add_epi32(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
    const __m128i h2 = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0x4E));
    const int32_t sum = _mm_cvtsi128_si32(_mm_add_epi32(h2, _mm_shuffle_epi32(h2, 0xB1)));
    uint16_t half;
    std::memcpy(&half, block, 2);
    acc = acc + static_cast<float>(sum) * (dx[b] * attn::halfToFloat(half));
  }
  return acc;
}

using TileFn = void (*)(const Q8Rows&, int64_t, const RepackedRows&, float*, int64_t, int64_t);

template <int... N>
constexpr auto tileTable(std::integer_sequence<int, N...>) {
  return std::array<TileFn, sizeof...(N)>{&tokenTile<N + 1>...};
}

}  // namespace

bool quantizedProductVector(const Q8Rows& x, const char* w, int64_t rowBytes, int64_t r0, int64_t m, float* y,
                            int64_t ldy) {
  static constexpr auto kTiles = tileTable(std::make_integer_sequence<int, kTokens>{});
  if (x.rows < kDirectTokens) {
    for (int64_t j = 0; j < m; ++j)
      for (int64_t t = 0; t < x.rows; ++t) y[t * ldy + j] = rowDot(w + (r0 + j) * rowBytes, x, t);
    return true;
  }
  thread_local RepackedRows p;  // per-thread scratch, kept across calls
  for (int64_t g0 = 0; g0 < m; g0 += kLanes) {
    const int64_t lanes = std::min<int64_t>(kLanes, m - g0);
    repackRows(w + (r0 + g0) * rowBytes, rowBytes, lanes, x.blocks(), p);
    const int64_t nextRows = std::min<int64_t>(kLanes, m - g0 - lanes);
    const int64_t parts = (x.rows + kTokens - 1) / kTokens;
    for (int64_t t0 = 0; t0 < x.rows; t0 += kTokens) {
      if (nextRows > 0)
        prefetchGroupPart(w + (r0 + g0 + lanes) * rowBytes, nextRows * rowBytes, t0 / kTokens, parts);
      const int64_t nt = std::min<int64_t>(kTokens, x.rows - t0);
      kTiles[static_cast<size_t>(nt - 1)](x, t0, p, y + g0, ldy, lanes);
    }
  }
  return true;
}

const char* vectorKernelName() {
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VNNI__)
  return "avx512-vnni";
#elif defined(__AVX512F__) && defined(__AVX512BW__)
  return "avx512";
#else
  return "avx2";
#endif
}

#else

bool quantizedProductVector(const Q8Rows&, const char*, int64_t, int64_t, int64_t, float*, int64_t) {
  return false;  // baseline copy: the scalar reference
}
const char* vectorKernelName() { return nullptr; }

#endif

}  // namespace attn::models::gguf
