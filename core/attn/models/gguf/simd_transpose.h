#pragma once
// The in-register transpose the Q8_0 and K-quant kernels share (quantized_dot_simd.cpp,
// kquant_dot_simd.cpp): each row's weight blocks are read contiguously and transposed so
// that one vector holds the same 4 bytes of every row of a group (16-row gathers at a large
// stride cost more). Included only by those per-engine-copy files; the anonymous namespace
// keeps each copy's instance to its own translation unit.
#if defined(__AVX2__)
#include <immintrin.h>

namespace attn::models::gguf {
namespace {

#if defined(__AVX512F__) && defined(__AVX512BW__)
/// r[i] holds row i's 16 groups of 4 bytes; afterwards r[g] holds group g of rows 0..15.
inline void transposeRowGroups(__m512i r[16]) {
  __m512i t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {  // r[4i + k], 128-bit lane l: rows 4i..4i+3 of group 4l + k
    r[4 * i + 0] = _mm512_unpacklo_epi64(t[4 * i + 0], t[4 * i + 2]);
    r[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i + 0], t[4 * i + 2]);
    r[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    r[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
  for (int k = 0; k < 4; ++k) {
    const __m512i abLo = _mm512_shuffle_i32x4(r[k], r[4 + k], 0x44),
                  abHi = _mm512_shuffle_i32x4(r[k], r[4 + k], 0xEE);
    const __m512i cdLo = _mm512_shuffle_i32x4(r[8 + k], r[12 + k], 0x44);
    const __m512i cdHi = _mm512_shuffle_i32x4(r[8 + k], r[12 + k], 0xEE);
    t[k] = _mm512_shuffle_i32x4(abLo, cdLo, 0x88), t[4 + k] = _mm512_shuffle_i32x4(abLo, cdLo, 0xDD);
    t[8 + k] = _mm512_shuffle_i32x4(abHi, cdHi, 0x88), t[12 + k] = _mm512_shuffle_i32x4(abHi, cdHi, 0xDD);
  }
  for (int g = 0; g < 16; ++g) r[g] = t[g];
}
#elif defined(__AVX2__)
/// r[i] holds row i's 8 groups of 4 bytes; afterwards r[g] holds group g of rows 0..7.
inline void transposeRowGroups(__m256i r[8]) {
  __m256i t[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 2; ++i) {  // r[4i + k], 128-bit lane l: rows 4i..4i+3 of group 4l + k
    r[4 * i + 0] = _mm256_unpacklo_epi64(t[4 * i + 0], t[4 * i + 2]);
    r[4 * i + 1] = _mm256_unpackhi_epi64(t[4 * i + 0], t[4 * i + 2]);
    r[4 * i + 2] = _mm256_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    r[4 * i + 3] = _mm256_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
  for (int k = 0; k < 4; ++k) {
    t[k] = _mm256_permute2x128_si256(r[k], r[4 + k], 0x20);
    t[4 + k] = _mm256_permute2x128_si256(r[k], r[4 + k], 0x31);
  }
  for (int g = 0; g < 8; ++g) r[g] = t[g];
}
#endif

}  // namespace
}  // namespace attn::models::gguf
#endif
