#include "attn/models/gguf/panel_decode.h"

#include <cstring>

#include "attn/io/float_convert.h"
#include "attn/models/gguf/dequantize.h"
#include "attn/models/gguf/ggml_types.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace attn::models::gguf {
namespace {

#if defined(__AVX2__)

// Block layouts: ggml-common.h; arithmetic: ggml-quants.c dequantize_row_q8_0 / _q4_K / _q6_K,
// each value y = d * q (Q8_0, with d * sc folded first for Q6_K) or y = d1 * q - m1 (Q4_K), one
// rounding per product as in the scalar decoder (dequantize.cpp).

inline float panelHalf(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return attn::halfToFloat(h);
}

/// y[0..16) = d * q for 16 signed bytes.
inline void scaledSigned16(__m128i q, float d, float* y) {
#if defined(__AVX512F__)
  _mm512_storeu_ps(y, _mm512_mul_ps(_mm512_set1_ps(d), _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q))));
#else
  const __m256 dv = _mm256_set1_ps(d);
  _mm256_storeu_ps(y, _mm256_mul_ps(dv, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q))));
  _mm256_storeu_ps(y + 8, _mm256_mul_ps(dv, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(q, 8)))));
#endif
}

/// y[0..16) = d * q - m for 16 unsigned bytes.
inline void scaledUnsigned16(__m128i q, float d, float m, float* y) {
#if defined(__AVX512F__)
  const __m512 v = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(q));
  _mm512_storeu_ps(y, _mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(d), v), _mm512_set1_ps(m)));
#else
  const __m256 dv = _mm256_set1_ps(d), mv = _mm256_set1_ps(m);
  const __m256 lo = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(q));
  const __m256 hi = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(q, 8)));
  _mm256_storeu_ps(y, _mm256_sub_ps(_mm256_mul_ps(dv, lo), mv));
  _mm256_storeu_ps(y + 8, _mm256_sub_ps(_mm256_mul_ps(dv, hi), mv));
#endif
}

inline __m256i load32(const uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }

void vectorQ8_0(const uint8_t* b, float* y, int64_t blocks) {  // half d; i8 qs[32]
  for (int64_t i = 0; i < blocks; ++i, b += 34, y += 32) {
    const float d = panelHalf(b);
    scaledSigned16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 2)), d, y);
    scaledSigned16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 18)), d, y + 16);
  }
}

/// get_scale_min_k4 (ggml-quants.c): the j-th 6-bit scale and minimum of a Q4_K block.
inline void panelScaleMinK4(int j, const uint8_t* q, float d, float dmin, float& scale, float& min) {
  uint8_t sc, m;
  if (j < 4) {
    sc = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    sc = static_cast<uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    m = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j - 0] >> 6) << 4));
  }
  scale = d * static_cast<float>(sc);
  min = dmin * static_cast<float>(m);
}

void vectorQ4_K(const uint8_t* b, float* y, int64_t blocks) {  // half d, dmin; scales[12]; qs[128]
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  for (int64_t i = 0; i < blocks; ++i, b += 144) {
    const float d = panelHalf(b), dmin = panelHalf(b + 2);
    const uint8_t* scales = b + 4;
    const uint8_t* ql = b + 16;
    // 64 values per step: the low nibbles of 32 bytes under sub-block 2j, the high under 2j + 1.
    for (int j = 0; j < 4; ++j, ql += 32, y += 64) {
      float d1, m1, d2, m2;
      panelScaleMinK4(2 * j, scales, d, dmin, d1, m1);
      panelScaleMinK4(2 * j + 1, scales, d, dmin, d2, m2);
      const __m256i q = load32(ql);
      const __m256i lo = _mm256_and_si256(q, low4), hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), low4);
      scaledUnsigned16(_mm256_castsi256_si128(lo), d1, m1, y);
      scaledUnsigned16(_mm256_extracti128_si256(lo, 1), d1, m1, y + 16);
      scaledUnsigned16(_mm256_castsi256_si128(hi), d2, m2, y + 32);
      scaledUnsigned16(_mm256_extracti128_si256(hi, 1), d2, m2, y + 48);
    }
  }
}

/// 32 six-bit values (0..63) minus 32: four low bits from `low` (already shifted down), two high
/// bits at bit `shift` of `high`.
inline __m256i sixBits(__m256i low, __m256i high, int shift) {
  const __m256i low4 = _mm256_set1_epi8(0x0F), two = _mm256_set1_epi8(3);
  const __m256i h = _mm256_and_si256(_mm256_srl_epi16(high, _mm_cvtsi32_si128(shift)), two);
  const __m256i q = _mm256_or_si256(_mm256_and_si256(low, low4), _mm256_slli_epi16(h, 4));
  return _mm256_sub_epi8(q, _mm256_set1_epi8(32));
}

/// y[0..32) = (d * sc[0]) * q[0..16), (d * sc[1]) * q[16..32).
inline void scaledSigned32(__m256i q, float d, const int8_t* sc, float* y) {
  scaledSigned16(_mm256_castsi256_si128(q), d * static_cast<float>(sc[0]), y);
  scaledSigned16(_mm256_extracti128_si256(q, 1), d * static_cast<float>(sc[1]), y + 16);
}

void vectorQ6_K(const uint8_t* b, float* y, int64_t blocks) {  // u8 ql[128]; u8 qh[64]; i8 scales[16]; half d
  for (int64_t i = 0; i < blocks; ++i, b += 210) {
    const uint8_t* ql = b;
    const uint8_t* qh = b + 128;
    const auto* sc = reinterpret_cast<const int8_t*>(b + 192);
    const float d = panelHalf(b + 208);
    for (int n = 0; n < 2; ++n, ql += 64, qh += 32, sc += 8, y += 128) {
      const __m256i l0 = load32(ql), l1 = load32(ql + 32), h = load32(qh);
      scaledSigned32(sixBits(l0, h, 0), d, sc + 0, y);
      scaledSigned32(sixBits(l1, h, 2), d, sc + 2, y + 32);
      scaledSigned32(sixBits(_mm256_srli_epi16(l0, 4), h, 4), d, sc + 4, y + 64);
      scaledSigned32(sixBits(_mm256_srli_epi16(l1, 4), h, 6), d, sc + 6, y + 96);
    }
  }
}

using PanelFn = void (*)(const uint8_t*, float*, int64_t);

PanelFn vectorDecoder(uint32_t type) {
  switch (static_cast<GgmlType>(type)) {
    case GgmlType::Q8_0:
      return vectorQ8_0;
    case GgmlType::Q4_K:
      return vectorQ4_K;
    case GgmlType::Q6_K:
      return vectorQ6_K;
    default:
      return nullptr;
  }
}

#else

using PanelFn = void (*)(const uint8_t*, float*, int64_t);
PanelFn vectorDecoder(uint32_t) { return nullptr; }  // baseline copy: the scalar decoder

#endif

}  // namespace

bool hasVectorDecoder(uint32_t type) { return vectorDecoder(type) != nullptr; }

bool decodePanel(uint32_t type, const char* src, float* dst, int64_t n) {
  const PanelFn fn = vectorDecoder(type);
  const GgmlTypeTraits* traits = ggmlTypeTraits(type);
  if (!fn || !traits) return dequantize(type, src, dst, n);
  if (n < 0 || n % traits->blockElements != 0) return false;
  fn(reinterpret_cast<const uint8_t*>(src), dst, n / traits->blockElements);
  return true;
}

}  // namespace attn::models::gguf
