#include "attn/models/gguf/kquant_dot.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "attn/io/float_convert.h"
#include "attn/models/gguf/ggml_types.h"
#include "attn/models/gguf/kquant_dot_simd.h"

#if defined(__AVX512F__) && defined(__AVX512BW__)
#include <immintrin.h>
#endif

namespace attn::models::gguf {
namespace {

float halfFrom(const char* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return attn::halfToFloat(h);
}

/// One super-block of quantize_row_q8_K_ref: the signed value of largest magnitude maps to -127.
[[maybe_unused]] void quantizeSuperBlock(const float* x, int8_t* q, float& d, int32_t* bsum16) {
  // ggml keeps the first value of the largest magnitude (NaN never compares larger): found in
  // two passes so that the first one vectorizes.
  float amax = 0.0f, max = 0.0f;
  for (int64_t j = 0; j < kSuperBlock; ++j) amax = std::max(amax, std::fabs(x[j]));
  for (int64_t j = 0; j < kSuperBlock; ++j)
    if (std::fabs(x[j]) == amax) {
      max = x[j];
      break;
    }
  if (amax == 0.0f) {
    d = 0.0f;
    std::memset(q, 0, kSuperBlock);
    for (int64_t j = 0; j < kSuperBlock / 16; ++j) bsum16[j] = 0;
    return;
  }
  const float iscale = -127.0f / max;
  for (int64_t j = 0; j < kSuperBlock; ++j) {
    float r = std::nearbyint(iscale * x[j]);                  // the default mode: to nearest, ties to even
    r = r >= -127.0f ? (r <= 127.0f ? r : 127.0f) : -127.0f;  // NaN too: no undefined conversion
    q[j] = static_cast<int8_t>(static_cast<int>(r));
  }
  for (int64_t j = 0; j < kSuperBlock / 16; ++j) {
    int32_t s = 0;
    for (int64_t k = 0; k < 16; ++k) s += q[j * 16 + k];
    bsum16[j] = s;
  }
  d = 1.0f / iscale;
}

/// get_scale_min_k4: the j-th 6-bit scale and minimum of a Q4_K block's 12 scale bytes.
void scaleMinQ4K(int j, const uint8_t* q, int32_t& sc, int32_t& m) {
  if (j < 4) {
    sc = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    sc = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
    m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  }
}

/// One output's super-block b, from the unpacked weights and token row i.
float superBlockTerm(uint32_t type, const KBlock& w, const Q8KRows& x, int64_t i, int64_t b, float acc) {
  const int8_t* q = x.q.data() + i * x.cols + b * kSuperBlock;
  const int32_t* bsum = x.bsum16.data() + i * (x.cols / 16) + b * 16;
  const float dx = x.d[static_cast<size_t>(i * x.blocks() + b)];
  int32_t sumi = 0;
  if (type == static_cast<uint32_t>(GgmlType::Q4_K)) {
    int32_t summ = 0;
    for (int j = 0; j < 8; ++j) {
      int32_t s = 0;
      for (int k = 0; k < 32; ++k) s += static_cast<int32_t>(w.v[j * 32 + k]) * q[j * 32 + k];
      sumi += w.sc[j] * s;
      summ += w.m[j] * (bsum[2 * j] + bsum[2 * j + 1]);
    }
    return (acc + static_cast<float>(sumi) * (dx * w.d)) - static_cast<float>(summ) * (dx * w.dmin);
  }
  for (int j = 0; j < 16; ++j) {
    int32_t s = 0;
    for (int k = 0; k < 16; ++k) s += (static_cast<int32_t>(w.v[j * 16 + k]) - 32) * q[j * 16 + k];
    sumi += w.sc[j] * s;
  }
  return acc + static_cast<float>(sumi) * (dx * w.d);
}

#if defined(__AVX512F__) && defined(__AVX512BW__)
/// quantizeSuperBlock 16 values at a time, the same operations: the largest |x| (max returns its
/// second operand when either is NaN, so a NaN is skipped as std::max skips it), the first value
/// of that magnitude, iscale * x rounded to nearest even (vrndscaleps: nearbyint in the default
/// mode), clamped to [-127, 127] with NaN to -127 (the same max rule), the 16-value sums exact.
void quantizeSuperBlockVec(const float* x, int8_t* q, float& d, int32_t* bsum16) {
  const __m512 magnitude = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
  __m512 vmax = _mm512_setzero_ps();
  for (int64_t j = 0; j < kSuperBlock; j += 16)
    vmax = _mm512_max_ps(_mm512_and_ps(_mm512_loadu_ps(x + j), magnitude), vmax);
  const float amax = _mm512_reduce_max_ps(vmax);
  if (amax == 0.0f) {
    d = 0.0f;
    std::memset(q, 0, kSuperBlock);
    for (int64_t j = 0; j < kSuperBlock / 16; ++j) bsum16[j] = 0;
    return;
  }
  float max = 0.0f;
  for (int64_t j = 0; j < kSuperBlock; j += 16) {
    const __mmask16 at = _mm512_cmp_ps_mask(_mm512_and_ps(_mm512_loadu_ps(x + j), magnitude),
                                            _mm512_set1_ps(amax), _CMP_EQ_OQ);
    if (at) {
      max = x[j + __builtin_ctz(at)];
      break;
    }
  }
  const float iscale = -127.0f / max;
  const __m512 scale = _mm512_set1_ps(iscale), lo = _mm512_set1_ps(-127.0f), hi = _mm512_set1_ps(127.0f);
  for (int64_t j = 0; j < kSuperBlock; j += 16) {
    __m512 r = _mm512_roundscale_ps(_mm512_mul_ps(scale, _mm512_loadu_ps(x + j)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm512_min_ps(_mm512_max_ps(r, lo), hi);
    const __m512i v = _mm512_cvtps_epi32(r);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + j), _mm512_cvtepi32_epi8(v));
    bsum16[j / 16] = _mm512_reduce_add_epi32(v);
  }
  d = 1.0f / iscale;
}
#endif

}  // namespace

void quantizeRowsQ8K(const float* x, int64_t rows, int64_t cols, int64_t stride, Q8KRows& out) {
  out.rows = rows, out.cols = cols;
  const int64_t blocks = cols / kSuperBlock, sixteens = cols / 16, pairs = cols / 64;
  out.q.resize(static_cast<size_t>(rows * cols));
  out.d.resize(static_cast<size_t>(rows * blocks));
  out.bsum16.resize(static_cast<size_t>(rows * sixteens));
  out.pairSums.resize(static_cast<size_t>(rows * pairs));
  out.bsumPairs.resize(static_cast<size_t>(rows * sixteens / 2));
  // Rows over the threads: on one thread, with the other waiting for the product, quantizing
  // took ~5% of a Q4_K_M forward (every projection quantizes its input).
#pragma omp parallel for schedule(static) if (rows * cols >= (int64_t{1} << 16))
  for (int64_t i = 0; i < rows; ++i) {
    int32_t* bsum = out.bsum16.data() + i * sixteens;
    for (int64_t b = 0; b < blocks; ++b)
#if defined(__AVX512F__) && defined(__AVX512BW__)
      quantizeSuperBlockVec(
#else
      quantizeSuperBlock(
#endif
          x + i * stride + b * kSuperBlock, out.q.data() + i * cols + b * kSuperBlock,
          out.d[static_cast<size_t>(i * blocks + b)], bsum + b * 16);
    for (int64_t p = 0; p < pairs; ++p) {  // |a 32-value sum| <= 32 * 127: fits int16
      const uint32_t lo = static_cast<uint16_t>(bsum[4 * p] + bsum[4 * p + 1]);
      const uint32_t hi = static_cast<uint16_t>(bsum[4 * p + 2] + bsum[4 * p + 3]);
      out.pairSums[static_cast<size_t>(i * pairs + p)] = static_cast<int32_t>(lo | (hi << 16));
    }
    for (int64_t p = 0; p < sixteens / 2; ++p)  // |a 16-value sum| <= 16 * 127
      out.bsumPairs[static_cast<size_t>(i * sixteens / 2 + p)] =
          static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint16_t>(bsum[2 * p])) |
                               (static_cast<uint32_t>(static_cast<uint16_t>(bsum[2 * p + 1])) << 16));
  }
}

bool canKQuantDot(uint32_t type) {
  return type == static_cast<uint32_t>(GgmlType::Q4_K) || type == static_cast<uint32_t>(GgmlType::Q6_K);
}

void unpackQ4K(const char* block, KBlock& out, bool withValues) {  // half d, dmin; u8 scales[12]; u8 qs[128]
  out.d = halfFrom(block), out.dmin = halfFrom(block + 2);
  const auto* scales = reinterpret_cast<const uint8_t*>(block + 4);
  const auto* qs = reinterpret_cast<const uint8_t*>(block + 16);
  for (int j = 0; j < 8; ++j) scaleMinQ4K(j, scales, out.sc[j], out.m[j]);
  if (!withValues) return;
  for (int c = 0; c < 4; ++c)  // 64 values: the low nibbles of 32 bytes, then their high nibbles
    for (int l = 0; l < 32; ++l) {
      out.v[64 * c + l] = qs[32 * c + l] & 0xF;
      out.v[64 * c + 32 + l] = qs[32 * c + l] >> 4;
    }
}

void unpackQ6K(const char* block, KBlock& out,
               bool withValues) {  // u8 ql[128]; u8 qh[64]; i8 scales[16]; half d
  const auto* ql = reinterpret_cast<const uint8_t*>(block);
  const auto* qh = reinterpret_cast<const uint8_t*>(block + 128);
  for (int j = 0; j < 16; ++j) out.sc[j] = static_cast<int8_t>(block[192 + j]);
  out.d = halfFrom(block + 208), out.dmin = 0.0f;
  if (!withValues) return;
  for (int n = 0; n < 2; ++n, ql += 64, qh += 32)  // dequantize_row_q6_K's order
    for (int l = 0; l < 32; ++l) {
      uint8_t* v = out.v + 128 * n + l;
      v[0] = static_cast<uint8_t>((ql[l] & 0xF) | ((qh[l] & 3) << 4));
      v[32] = static_cast<uint8_t>((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4));
      v[64] = static_cast<uint8_t>((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4));
      v[96] = static_cast<uint8_t>((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4));
    }
}

void kquantProductReference(uint32_t type, const Q8KRows& x, const char* w, int64_t rowBytes, int64_t r0,
                            int64_t m, float* y, int64_t ldy) {
  const bool q4 = type == static_cast<uint32_t>(GgmlType::Q4_K);
  const int64_t blockBytes = q4 ? 144 : 210, blocks = x.blocks();
  std::vector<KBlock> row(static_cast<size_t>(blocks));
  for (int64_t j = 0; j < m; ++j) {
    const char* src = w + (r0 + j) * rowBytes;
    for (int64_t b = 0; b < blocks; ++b) {
      if (q4)
        unpackQ4K(src + b * blockBytes, row[static_cast<size_t>(b)]);
      else
        unpackQ6K(src + b * blockBytes, row[static_cast<size_t>(b)]);
    }
    for (int64_t i = 0; i < x.rows; ++i) {
      float acc = 0.0f;
      for (int64_t b = 0; b < blocks; ++b)
        acc = superBlockTerm(type, row[static_cast<size_t>(b)], x, i, b, acc);
      y[i * ldy + j] = acc;
    }
  }
}

void kquantProduct(uint32_t type, const Q8KRows& x, const char* w, int64_t rowBytes, int64_t r0, int64_t m,
                   float* y, int64_t ldy) {
  if (!kquantProductVector(type, x, w, rowBytes, r0, m, y, ldy))
    kquantProductReference(type, x, w, rowBytes, r0, m, y, ldy);
}

}  // namespace attn::models::gguf
