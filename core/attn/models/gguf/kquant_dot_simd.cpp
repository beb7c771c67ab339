#include "attn/models/gguf/kquant_dot_simd.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>
#include <vector>

#include "attn/models/gguf/ggml_types.h"
#include "attn/models/gguf/group_prefetch.h"
#include "attn/models/gguf/kquant_dot.h"
#include "attn/models/gguf/simd_transpose.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace attn::models::gguf {

#if defined(__AVX2__)
namespace {

// As the Q8_0 kernel (quantized_dot_simd.cpp): a vector holds one int32 / f32 lane per output
// row; the unpacked weights of kKLanes rows are interleaved so that one load gives each row's 4
// consecutive values, the token's 4 matching int8 are broadcast, and a 4-way dot product of
// unsigned weights (Q4_K 0..15, Q6_K 0..63) by signed activations adds them in: VNNI vpdpbusd,
// or maddubs + madd (pairs at most 2 * 63 * 127, no saturation). Each sub-block's exact sum is
// multiplied by the rows' scales (vpmulld) into the super-block's sum; the Q4_K minimums meet
// the token's 32-value sums in a 16-bit pair dot product (vpdpwssd, or madd).
#if defined(__AVX512F__) && defined(__AVX512BW__)
constexpr int kKLanes = 16;
constexpr int kKTokens = 8;
using KVecI = __m512i;
using KVecF = __m512;
inline KVecI kLoadI(const void* p) { return _mm512_loadu_si512(p); }
inline KVecI kSetI(int32_t v) { return _mm512_set1_epi32(v); }
inline KVecI kZeroI() { return _mm512_setzero_si512(); }
inline KVecI kAddI(KVecI a, KVecI b) { return _mm512_add_epi32(a, b); }
inline KVecI kMulI(KVecI a, KVecI b) { return _mm512_mullo_epi32(a, b); }
inline KVecI kSubI(KVecI a, KVecI b) { return _mm512_sub_epi32(a, b); }
inline KVecI kShift5(KVecI a) { return _mm512_slli_epi32(a, 5); }
inline KVecF kZeroF() { return _mm512_setzero_ps(); }
inline KVecF kLoadF(const float* p) { return _mm512_loadu_ps(p); }
inline KVecF kSetF(float v) { return _mm512_set1_ps(v); }
inline KVecF kMulF(KVecF a, KVecF b) { return _mm512_mul_ps(a, b); }
inline KVecF kAddF(KVecF a, KVecF b) { return _mm512_add_ps(a, b); }
inline KVecF kSubF(KVecF a, KVecF b) { return _mm512_sub_ps(a, b); }
inline KVecF kToF(KVecI a) { return _mm512_cvtepi32_ps(a); }
inline void kStoreF(float* p, KVecF v) { _mm512_storeu_ps(p, v); }
inline int32_t kSumI(KVecI a) { return _mm512_reduce_add_epi32(a); }
#if defined(__AVX512VNNI__)
inline KVecI kDotU8(KVecI acc, KVecI w, KVecI x) { return _mm512_dpbusd_epi32(acc, w, x); }
inline KVecI kDotI16(KVecI acc, KVecI a, KVecI b) { return _mm512_dpwssd_epi32(acc, a, b); }
#else
inline KVecI kDotU8(KVecI acc, KVecI w, KVecI x) {
  return _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_maddubs_epi16(w, x), _mm512_set1_epi16(1)));
}
inline KVecI kDotI16(KVecI acc, KVecI a, KVecI b) { return _mm512_add_epi32(acc, _mm512_madd_epi16(a, b)); }
#endif
#else
constexpr int kKLanes = 8;
constexpr int kKTokens = 4;
using KVecI = __m256i;
using KVecF = __m256;
inline KVecI kLoadI(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline KVecI kSetI(int32_t v) { return _mm256_set1_epi32(v); }
inline KVecI kZeroI() { return _mm256_setzero_si256(); }
inline KVecI kAddI(KVecI a, KVecI b) { return _mm256_add_epi32(a, b); }
inline KVecI kMulI(KVecI a, KVecI b) { return _mm256_mullo_epi32(a, b); }
inline KVecI kSubI(KVecI a, KVecI b) { return _mm256_sub_epi32(a, b); }
inline KVecI kShift5(KVecI a) { return _mm256_slli_epi32(a, 5); }
inline KVecF kZeroF() { return _mm256_setzero_ps(); }
inline KVecF kLoadF(const float* p) { return _mm256_loadu_ps(p); }
inline KVecF kSetF(float v) { return _mm256_set1_ps(v); }
inline KVecF kMulF(KVecF a, KVecF b) { return _mm256_mul_ps(a, b); }
inline KVecF kAddF(KVecF a, KVecF b) { return _mm256_add_ps(a, b); }
inline KVecF kSubF(KVecF a, KVecF b) { return _mm256_sub_ps(a, b); }
inline KVecF kToF(KVecI a) { return _mm256_cvtepi32_ps(a); }
inline void kStoreF(float* p, KVecF v) { _mm256_storeu_ps(p, v); }
inline KVecI kDotU8(KVecI acc, KVecI w, KVecI x) {
  return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(w, x), _mm256_set1_epi16(1)));
}
inline KVecI kDotI16(KVecI acc, KVecI a, KVecI b) { return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b)); }
inline int32_t kSumI(KVecI a) {
  const __m128i s = _mm_add_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
  const __m128i t = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  return _mm_cvtsi128_si32(_mm_add_epi32(t, _mm_shuffle_epi32(t, 0xB1)));
}
#endif

constexpr int64_t kGroups = kSuperBlock / 4;  // 4-value groups per super-block

/// kKLanes weight rows: super-block b's values 4g..4g+3 of row r at v[((b * 64 + g) * kKLanes + r)
/// * 4], scale j at sc[(b * 16 + j) * kKLanes + r], as int16 pairs in mp[(b * 8 + p) * kKLanes + r]
/// the Q4_K minimums 2p, 2p+1 (p < 4) or the Q6_K scales 2p, 2p+1, d and dmin at
/// [b * kKLanes + r]; rows past the matrix's are zero.
struct KRepacked {
  std::vector<uint8_t> v;
  std::vector<int32_t> sc, mp;
  std::vector<float> d, dmin;
};

/// One row's super-block in value order (Q4_K: the low nibbles of 32 bytes, then their high
/// nibbles; Q6_K: dequantize_row_q6_K's order), 32 values per step.
void unpackValues(bool q4, const char* block, uint8_t* v) {
  const __m256i m4 = _mm256_set1_epi8(0x0F), m30 = _mm256_set1_epi8(0x30), m3 = _mm256_set1_epi8(0x03);
  const auto load = [](const char* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); };
  const auto store = [&v](int64_t at, __m256i x) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(v + at), x);
  };
  if (q4) {
    for (int64_t c = 0; c < 4; ++c) {
      const __m256i q = load(block + 16 + 32 * c);
      store(64 * c, _mm256_and_si256(q, m4));
      store(64 * c + 32, _mm256_and_si256(_mm256_srli_epi16(q, 4), m4));
    }
    return;
  }
  for (int64_t n = 0; n < 2; ++n) {
    const __m256i l0 = load(block + 64 * n), l1 = load(block + 64 * n + 32), h = load(block + 128 + 32 * n);
    store(128 * n, _mm256_or_si256(_mm256_and_si256(l0, m4), _mm256_slli_epi16(_mm256_and_si256(h, m3), 4)));
    store(128 * n + 32,
          _mm256_or_si256(_mm256_and_si256(l1, m4), _mm256_and_si256(_mm256_slli_epi16(h, 2), m30)));
    store(128 * n + 64,
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4), _mm256_and_si256(h, m30)));
    store(128 * n + 96, _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                                        _mm256_and_si256(_mm256_srli_epi16(h, 2), m30)));
  }
}

/// Block b's values of kKLanes rows (value order in `rows`, 256 bytes each) into the layout.
void interleaveValues(const uint8_t* rows, uint8_t* dst) {
  for (int64_t c = 0; c < kSuperBlock / (4 * kKLanes); ++c) {  // kKLanes groups of 4 at a time
    KVecI r[kKLanes];
    for (int i = 0; i < kKLanes; ++i) r[i] = kLoadI(rows + i * kSuperBlock + c * 4 * kKLanes);
    transposeRowGroups(r);
    for (int g = 0; g < kKLanes; ++g)
      std::memcpy(dst + (c * kKLanes + g) * kKLanes * 4, &r[g], sizeof(KVecI));
  }
}

/// Row r's scales, minimums and super-block scales of block b.
void putScales(bool q4, const char* block, int64_t b, int64_t r, KRepacked& p) {
  KBlock u;
  if (q4)
    unpackQ4K(block, u, false);
  else
    unpackQ6K(block, u, false);
  const size_t at = static_cast<size_t>(b * kKLanes + r);
  p.d[at] = u.d, p.dmin[at] = u.dmin;
  for (int64_t j = 0; j < (q4 ? 8 : 16); ++j) p.sc[static_cast<size_t>((b * 16 + j) * kKLanes + r)] = u.sc[j];
  const auto pair = [](int32_t lo, int32_t hi) {
    return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint16_t>(lo)) |
                                (static_cast<uint32_t>(static_cast<uint16_t>(hi)) << 16));
  };
  for (int64_t q = 0; q < (q4 ? 4 : 8); ++q)
    p.mp[static_cast<size_t>((b * 8 + q) * kKLanes + r)] =
        q4 ? pair(u.m[2 * q], u.m[2 * q + 1]) : pair(u.sc[2 * q], u.sc[2 * q + 1]);
}

void repackKRows(bool q4, const char* w, int64_t rowBytes, int64_t rows, int64_t blocks, KRepacked& p) {
  p.v.resize(static_cast<size_t>(blocks * kSuperBlock * kKLanes));
  p.sc.resize(static_cast<size_t>(blocks * 16 * kKLanes));
  p.mp.resize(static_cast<size_t>(blocks * 8 * kKLanes));
  p.d.resize(static_cast<size_t>(blocks * kKLanes));
  p.dmin.resize(static_cast<size_t>(blocks * kKLanes));
  if (rows < kKLanes) {
    std::fill(p.sc.begin(), p.sc.end(), 0);
    std::fill(p.mp.begin(), p.mp.end(), 0);
    std::fill(p.d.begin(), p.d.end(), 0.0f);
    std::fill(p.dmin.begin(), p.dmin.end(), 0.0f);
  }
  const int64_t blockBytes = q4 ? 144 : 210;
  alignas(64) uint8_t values[kKLanes * kSuperBlock];
  std::memset(values + rows * kSuperBlock, 0,
              static_cast<size_t>((kKLanes - rows) * kSuperBlock));  // past the matrix
  for (int64_t b = 0; b < blocks; ++b) {
    for (int64_t r = 0; r < rows; ++r) {
      const char* src = w + r * rowBytes + b * blockBytes;
      unpackValues(q4, src, values + r * kSuperBlock);
      putScales(q4, src, b, r, p);
    }
    interleaveValues(values, p.v.data() + b * kSuperBlock * kKLanes);
  }
}

inline KVecI kBroadcast4(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return kSetI(v);
}

/// Stores NT tokens' accumulators: y[(t0 + t) * ldy + r] for the group's first `lanes` rows.
template <int NT>
void storeTile(const KVecF* acc, float* y, int64_t t0, int64_t ldy, int64_t lanes) {
  for (int t = 0; t < NT; ++t) {
    float* dst = y + (t0 + t) * ldy;
    if (lanes == kKLanes) {
      kStoreF(dst, acc[t]);
    } else {
      alignas(64) float lane[kKLanes];
      kStoreF(lane, acc[t]);
      std::copy(lane, lane + lanes, dst);
    }
  }
}

/// Q4_K: NT tokens from t0 against the group's rows.
template <int NT>
void tileQ4K(const Q8KRows& x, int64_t t0, const KRepacked& p, float* y, int64_t ldy, int64_t lanes) {
  const int64_t blocks = x.blocks();
  KVecF acc[NT];
  for (int t = 0; t < NT; ++t) acc[t] = kZeroF();
  for (int64_t b = 0; b < blocks; ++b) {
    KVecI sumi[NT], summ[NT];
    for (int t = 0; t < NT; ++t) sumi[t] = kZeroI(), summ[t] = kZeroI();
    for (int64_t j = 0; j < 8; ++j) {
      KVecI s[NT];
      for (int t = 0; t < NT; ++t) s[t] = kZeroI();
      const uint8_t* wv = p.v.data() + (b * kGroups + j * 8) * kKLanes * 4;
      for (int64_t g = 0; g < 8; ++g) {
        const KVecI wg = kLoadI(wv + g * kKLanes * 4);
        for (int t = 0; t < NT; ++t)
          s[t] = kDotU8(s[t], wg,
                        kBroadcast4(x.q.data() + (t0 + t) * x.cols + b * kSuperBlock + j * 32 + g * 4));
      }
      const KVecI sc = kLoadI(p.sc.data() + (b * 16 + j) * kKLanes);
      for (int t = 0; t < NT; ++t) sumi[t] = kAddI(sumi[t], kMulI(s[t], sc));
    }
    for (int64_t q = 0; q < 4; ++q) {
      const KVecI mp = kLoadI(p.mp.data() + (b * 8 + q) * kKLanes);
      for (int t = 0; t < NT; ++t)
        summ[t] = kDotI16(summ[t], mp,
                          kSetI(x.pairSums[static_cast<size_t>((t0 + t) * (x.cols / 64) + b * 4 + q)]));
    }
    const KVecF d = kLoadF(p.d.data() + b * kKLanes), dmin = kLoadF(p.dmin.data() + b * kKLanes);
    for (int t = 0; t < NT; ++t) {
      const KVecF dx = kSetF(x.d[static_cast<size_t>((t0 + t) * blocks + b)]);
      acc[t] =
          kSubF(kAddF(acc[t], kMulF(kToF(sumi[t]), kMulF(dx, d))), kMulF(kToF(summ[t]), kMulF(dx, dmin)));
    }
  }
  storeTile<NT>(acc, y, t0, ldy, lanes);
}

/// Q6_K: the stored 6 bits as unsigned weights; sum_j sc_j sum (q - 32) x is taken as
/// sum_j sc_j sum q x - 32 sum_j sc_j bsum_j, the second sum a 16-bit pair dot product.
template <int NT>
void tileQ6K(const Q8KRows& x, int64_t t0, const KRepacked& p, float* y, int64_t ldy, int64_t lanes) {
  const int64_t blocks = x.blocks();
  KVecF acc[NT];
  for (int t = 0; t < NT; ++t) acc[t] = kZeroF();
  for (int64_t b = 0; b < blocks; ++b) {
    KVecI sumi[NT], offs[NT];
    for (int t = 0; t < NT; ++t) sumi[t] = kZeroI(), offs[t] = kZeroI();
    for (int64_t q = 0; q < 8; ++q) {
      const KVecI sp = kLoadI(p.mp.data() + (b * 8 + q) * kKLanes);
      for (int t = 0; t < NT; ++t)
        offs[t] = kDotI16(offs[t], sp,
                          kSetI(x.bsumPairs[static_cast<size_t>((t0 + t) * (x.cols / 32) + b * 8 + q)]));
    }
    for (int64_t j = 0; j < 16; ++j) {
      KVecI s[NT];
      for (int t = 0; t < NT; ++t) s[t] = kZeroI();
      const uint8_t* wv = p.v.data() + (b * kGroups + j * 4) * kKLanes * 4;
      for (int64_t g = 0; g < 4; ++g) {
        const KVecI wg = kLoadI(wv + g * kKLanes * 4);
        for (int t = 0; t < NT; ++t)
          s[t] = kDotU8(s[t], wg,
                        kBroadcast4(x.q.data() + (t0 + t) * x.cols + b * kSuperBlock + j * 16 + g * 4));
      }
      const KVecI sc = kLoadI(p.sc.data() + (b * 16 + j) * kKLanes);
      for (int t = 0; t < NT; ++t) sumi[t] = kAddI(sumi[t], kMulI(s[t], sc));
    }
    const KVecF d = kLoadF(p.d.data() + b * kKLanes);
    for (int t = 0; t < NT; ++t) {
      const KVecF dx = kSetF(x.d[static_cast<size_t>((t0 + t) * blocks + b)]);
      acc[t] = kAddF(acc[t], kMulF(kToF(kSubI(sumi[t], kShift5(offs[t]))), kMulF(dx, d)));
    }
  }
  storeTile<NT>(acc, y, t0, ldy, lanes);
}

/// Fewer tokens than this take rowDot (no repack): a generation step, or the output head at the
/// last position, would otherwise reorder every weight for one use.
constexpr int64_t kDirectTokens = 4;

/// sum_j sc_j sum_{k in sub-block j} v_k qx_k of one super-block: the unpacked values `v` (256,
/// row order) by the token's `qx`, each sub-block of `sub` values times its scale. Exact in
/// int32 (at most 256 x 63 x 127 x 127), so the order of the sums does not matter.
int32_t scaledSubBlockSums(const uint8_t* v, const int8_t* qx, const int32_t* sc, int64_t sub) {
  constexpr int64_t kChunk = sizeof(KVecI);  // values per vector; lane l holds values 4l..4l+3
  KVecI sum = kZeroI();
#if defined(__AVX512F__) && defined(__AVX512BW__)
  // Lane l of chunk c takes the scale of sub-block (64 c + 4 l) / sub: one permute of the scales.
  // Q4_K has 8 scales: only those are read.
  const __m512i all = sub == 16
                          ? _mm512_loadu_si512(sc)
                          : _mm512_zextsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(sc)));
  const __m512i first = sub == 16 ? _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3)
                                  : _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
  const int32_t perChunk = static_cast<int32_t>(kChunk / sub);
  for (int64_t c = 0; c < kSuperBlock / kChunk; ++c) {
    const __m512i lanes = _mm512_permutexvar_epi32(
        _mm512_add_epi32(first, _mm512_set1_epi32(static_cast<int32_t>(c) * perChunk)), all);
    const KVecI dot = kDotU8(kZeroI(), kLoadI(v + c * kChunk), kLoadI(qx + c * kChunk));
    sum = kAddI(sum, kMulI(dot, lanes));
  }
#else
  for (int64_t c = 0; c < kSuperBlock / kChunk; ++c) {
    const __m256i lanes = sub == 16
                              ? _mm256_set_m128i(_mm_set1_epi32(sc[2 * c + 1]), _mm_set1_epi32(sc[2 * c]))
                              : _mm256_set1_epi32(sc[c]);
    const KVecI dot = kDotU8(kZeroI(), kLoadI(v + c * kChunk), kLoadI(qx + c * kChunk));
    sum = kAddI(sum, kMulI(dot, lanes));
  }
#endif
  return kSumI(sum);
}

/// One weight row of `blocks` super-blocks by token t, without the repack: the same integer
/// sums and the same f32 operations in the same order as the tiles (kquant_dot.h).
float rowDot(bool q4, const char* row, const Q8KRows& x, int64_t t) {
  const int64_t blocks = x.blocks(), blockBytes = q4 ? 144 : 210;
  alignas(64) uint8_t v[kSuperBlock];
  float acc = 0.0f;
  for (int64_t b = 0; b < blocks; ++b) {
    const char* block = row + b * blockBytes;
    KBlock u;
    if (q4)
      unpackQ4K(block, u, false);
    else
      unpackQ6K(block, u, false);
    unpackValues(q4, block, v);
    const int8_t* qx = x.q.data() + t * x.cols + b * kSuperBlock;
    const int32_t* bsum = x.bsum16.data() + t * (x.cols / 16) + b * 16;
    const int32_t sumi = scaledSubBlockSums(v, qx, u.sc, q4 ? 32 : 16);
    const float dx = x.d[static_cast<size_t>(t * blocks + b)];
    if (q4) {
      int32_t summ = 0;  // the minimums against the token's 32-value sums
      for (int64_t j = 0; j < 8; ++j) summ += u.m[j] * (bsum[2 * j] + bsum[2 * j + 1]);
      acc = (acc + static_cast<float>(sumi) * (dx * u.d)) - static_cast<float>(summ) * (dx * u.dmin);
    } else {
      int32_t offs = 0;  // the -32 of every stored value: 32 sum_j sc_j bsum_j
      for (int64_t j = 0; j < 16; ++j) offs += u.sc[j] * bsum[j];
      acc = acc + static_cast<float>(sumi - offs * 32) * (dx * u.d);
    }
  }
  return acc;
}

using KTileFn = void (*)(const Q8KRows&, int64_t, const KRepacked&, float*, int64_t, int64_t);

template <int... N>
constexpr auto tilesQ4K(std::integer_sequence<int, N...>) {
  return std::array<KTileFn, sizeof...(N)>{&tileQ4K<N + 1>...};
}
template <int... N>
constexpr auto tilesQ6K(std::integer_sequence<int, N...>) {
  return std::array<KTileFn, sizeof...(N)>{&tileQ6K<N + 1>...};
}

}  // namespace

bool kquantProductVector(uint32_t type, const Q8KRows& x, const char* w, int64_t rowBytes, int64_t r0,
                         int64_t m, float* y, int64_t ldy) {
  static constexpr auto kQ4 = tilesQ4K(std::make_integer_sequence<int, kKTokens>{});
  static constexpr auto kQ6 = tilesQ6K(std::make_integer_sequence<int, kKTokens>{});
  const bool q4 = type == static_cast<uint32_t>(GgmlType::Q4_K);
  const auto& tiles = q4 ? kQ4 : kQ6;
  if (x.rows < kDirectTokens) {
    for (int64_t j = 0; j < m; ++j)
      for (int64_t t = 0; t < x.rows; ++t) y[t * ldy + j] = rowDot(q4, w + (r0 + j) * rowBytes, x, t);
    return true;
  }
  thread_local KRepacked p;  // per-thread scratch, kept across calls
  for (int64_t g0 = 0; g0 < m; g0 += kKLanes) {
    const int64_t lanes = std::min<int64_t>(kKLanes, m - g0);
    repackKRows(q4, w + (r0 + g0) * rowBytes, rowBytes, lanes, x.blocks(), p);
    const int64_t nextRows = std::min<int64_t>(kKLanes, m - g0 - lanes);
    const int64_t parts = (x.rows + kKTokens - 1) / kKTokens;
    for (int64_t t0 = 0; t0 < x.rows; t0 += kKTokens) {
      if (nextRows > 0)
        prefetchGroupPart(w + (r0 + g0 + lanes) * rowBytes, nextRows * rowBytes, t0 / kKTokens, parts);
      const int64_t nt = std::min<int64_t>(kKTokens, x.rows - t0);
      tiles[static_cast<size_t>(nt - 1)](x, t0, p, y + g0, ldy, lanes);
    }
  }
  return true;
}

#else

bool kquantProductVector(uint32_t, const Q8KRows&, const char*, int64_t, int64_t, int64_t, float*, int64_t) {
  return false;  // baseline copy: the scalar reference
}

#endif

}  // namespace attn::models::gguf
