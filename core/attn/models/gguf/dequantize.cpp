#include "attn/models/gguf/dequantize.h"

#include <cstring>

#include "attn/io/float_convert.h"
#include "attn/models/gguf/ggml_types.h"

namespace attn::models::gguf {
namespace {

constexpr int kQK = 256;  // QK_K: values per k-quant super-block

inline float halfAt(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return attn::halfToFloat(h);
}

// Block layouts: ggml-common.h; arithmetic: ggml-quants.c dequantize_row_*.

void q4_0(const uint8_t* b, float* y) {  // half d; u8 qs[16]
  const float d = halfAt(b);
  const uint8_t* qs = b + 2;
  for (int j = 0; j < 16; ++j) {
    const int x0 = (qs[j] & 0x0F) - 8, x1 = (qs[j] >> 4) - 8;
    y[j] = static_cast<float>(x0) * d;
    y[j + 16] = static_cast<float>(x1) * d;
  }
}

void q4_1(const uint8_t* b, float* y) {  // half d, m; u8 qs[16]
  const float d = halfAt(b), m = halfAt(b + 2);
  const uint8_t* qs = b + 4;
  for (int j = 0; j < 16; ++j) {
    y[j] = static_cast<float>(qs[j] & 0x0F) * d + m;
    y[j + 16] = static_cast<float>(qs[j] >> 4) * d + m;
  }
}

void q5(const uint8_t* qhBytes, const uint8_t* qs, float d, float m, int offset, float* y) {
  uint32_t qh;
  std::memcpy(&qh, qhBytes, 4);
  for (int j = 0; j < 16; ++j) {
    const uint8_t xh0 = static_cast<uint8_t>(((qh >> (j + 0)) << 4) & 0x10);
    const uint8_t xh1 = static_cast<uint8_t>((qh >> (j + 12)) & 0x10);
    const int x0 = ((qs[j] & 0x0F) | xh0) - offset, x1 = ((qs[j] >> 4) | xh1) - offset;
    if (offset) {  // Q5_0: no minimum
      y[j] = static_cast<float>(x0) * d;
      y[j + 16] = static_cast<float>(x1) * d;
    } else {
      y[j] = static_cast<float>(x0) * d + m;
      y[j + 16] = static_cast<float>(x1) * d + m;
    }
  }
}
void q5_0(const uint8_t* b, float* y) { q5(b + 2, b + 6, halfAt(b), 0, 16, y); }  // half d; qh[4]; qs[16]
void q5_1(const uint8_t* b, float* y) {
  q5(b + 4, b + 8, halfAt(b), halfAt(b + 2), 0, y);
}  // half d, m; qh; qs

void q8_0(const uint8_t* b, float* y) {  // half d; i8 qs[32]
  const float d = halfAt(b);
  for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<int8_t>(b[2 + j])) * d;
}

void q2_K(const uint8_t* b, float* y) {  // u8 scales[16]; u8 qs[64]; half d, dmin
  const uint8_t* scales = b;
  const uint8_t* q = b + 16;
  const float d = halfAt(b + 80), min = halfAt(b + 82);
  int is = 0;
  for (int n = 0; n < kQK; n += 128) {
    for (int shift = 0; shift < 8; shift += 2) {
      for (int half = 0; half < 2; ++half) {
        const uint8_t sc = scales[is++];
        const float dl = d * static_cast<float>(sc & 0xF), ml = min * static_cast<float>(sc >> 4);
        for (int l = 0; l < 16; ++l) *y++ = dl * static_cast<float>((q[l + 16 * half] >> shift) & 3) - ml;
      }
    }
    q += 32;
  }
}

void q3_K(const uint8_t* b, float* y) {  // u8 hmask[32]; u8 qs[64]; u8 scales[12]; half d
  const uint8_t* hm = b;
  const uint8_t* q = b + 32;
  const float dAll = halfAt(b + 108);
  // The 16 6-bit scales: low 4 bits in bytes 0..7, high 2 bits in bytes 8..11 (the kmask shuffle).
  uint32_t aux[4];
  std::memcpy(aux, b + 96, 12);
  const uint32_t kmask1 = 0x03030303, kmask2 = 0x0f0f0f0f, tmp = aux[2];
  aux[2] = ((aux[0] >> 4) & kmask2) | (((tmp >> 4) & kmask1) << 4);
  aux[3] = ((aux[1] >> 4) & kmask2) | (((tmp >> 6) & kmask1) << 4);
  aux[0] = (aux[0] & kmask2) | (((tmp >> 0) & kmask1) << 4);
  aux[1] = (aux[1] & kmask2) | (((tmp >> 2) & kmask1) << 4);
  int8_t scales[16];
  std::memcpy(scales, aux, 16);
  int is = 0;
  uint8_t m = 1;
  for (int n = 0; n < kQK; n += 128) {
    for (int shift = 0; shift < 8; shift += 2, m = static_cast<uint8_t>(m << 1)) {
      for (int half = 0; half < 2; ++half) {
        const float dl = dAll * static_cast<float>(scales[is++] - 32);
        for (int l = 16 * half; l < 16 * half + 16; ++l)
          *y++ = dl * static_cast<float>(((q[l] >> shift) & 3) - ((hm[l] & m) ? 0 : 4));
      }
    }
    q += 32;
  }
}

/// get_scale_min_k4: the j-th 6-bit scale and minimum of a Q4_K / Q5_K block.
inline void scaleMinK4(int j, const uint8_t* q, uint8_t& d, uint8_t& m) {
  if (j < 4) {
    d = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    d = static_cast<uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    m = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j - 0] >> 6) << 4));
  }
}

/// Q4_K (qh null: half d, dmin; scales[12]; qs[128]) and Q5_K (qh[32] before qs).
void qK45(const uint8_t* b, const uint8_t* qh, const uint8_t* ql, float* y) {
  const float d = halfAt(b), min = halfAt(b + 2);
  const uint8_t* scales = b + 4;
  uint8_t u1 = 1, u2 = 2;
  for (int j = 0, is = 0; j < kQK; j += 64, is += 2) {
    uint8_t sc, m;
    scaleMinK4(is + 0, scales, sc, m);
    const float d1 = d * static_cast<float>(sc), m1 = min * static_cast<float>(m);
    scaleMinK4(is + 1, scales, sc, m);
    const float d2 = d * static_cast<float>(sc), m2 = min * static_cast<float>(m);
    for (int l = 0; l < 32; ++l)
      *y++ = d1 * static_cast<float>((ql[l] & 0xF) + (qh && (qh[l] & u1) ? 16 : 0)) - m1;
    for (int l = 0; l < 32; ++l)
      *y++ = d2 * static_cast<float>((ql[l] >> 4) + (qh && (qh[l] & u2) ? 16 : 0)) - m2;
    ql += 32;
    u1 = static_cast<uint8_t>(u1 << 2);
    u2 = static_cast<uint8_t>(u2 << 2);
  }
}
void q4_K(const uint8_t* b, float* y) { qK45(b, nullptr, b + 16, y); }
void q5_K(const uint8_t* b, float* y) { qK45(b, b + 16, b + 48, y); }

void q6_K(const uint8_t* b, float* y) {  // u8 ql[128]; u8 qh[64]; i8 scales[16]; half d
  const uint8_t* ql = b;
  const uint8_t* qh = b + 128;
  const auto* sc = reinterpret_cast<const int8_t*>(b + 192);
  const float d = halfAt(b + 208);
  for (int n = 0; n < kQK; n += 128) {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const auto q1 = static_cast<int8_t>(((ql[l + 0] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32);
      const auto q2 = static_cast<int8_t>(((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32);
      const auto q3 = static_cast<int8_t>(((ql[l + 0] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32);
      const auto q4 = static_cast<int8_t>(((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32);
      y[l + 0] = d * static_cast<float>(sc[is + 0]) * static_cast<float>(q1);
      y[l + 32] = d * static_cast<float>(sc[is + 2]) * static_cast<float>(q2);
      y[l + 64] = d * static_cast<float>(sc[is + 4]) * static_cast<float>(q3);
      y[l + 96] = d * static_cast<float>(sc[is + 6]) * static_cast<float>(q4);
    }
    y += 128;
    ql += 64;
    qh += 32;
    sc += 8;
  }
}

using BlockFn = void (*)(const uint8_t*, float*);

BlockFn blockDecoder(uint32_t type) {
  switch (static_cast<GgmlType>(type)) {
    case GgmlType::Q4_0:
      return q4_0;
    case GgmlType::Q4_1:
      return q4_1;
    case GgmlType::Q5_0:
      return q5_0;
    case GgmlType::Q5_1:
      return q5_1;
    case GgmlType::Q8_0:
      return q8_0;
    case GgmlType::Q2_K:
      return q2_K;
    case GgmlType::Q3_K:
      return q3_K;
    case GgmlType::Q4_K:
      return q4_K;
    case GgmlType::Q5_K:
      return q5_K;
    case GgmlType::Q6_K:
      return q6_K;
    default:
      return nullptr;
  }
}

}  // namespace

bool canDequantize(uint32_t type) {
  const auto t = static_cast<GgmlType>(type);
  return t == GgmlType::F32 || t == GgmlType::F16 || t == GgmlType::BF16 || blockDecoder(type) != nullptr;
}

const char* dequantizableTypes() {
  return "F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K";
}

bool dequantize(uint32_t type, const char* src, float* dst, int64_t n) {
  if (n < 0) return false;
  const auto t = static_cast<GgmlType>(type);
  if (t == GgmlType::F32) {
    std::memcpy(dst, src, static_cast<size_t>(n) * 4);
    return true;
  }
  if (t == GgmlType::F16 || t == GgmlType::BF16) {
    for (int64_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, src + 2 * i, 2);
      dst[i] = t == GgmlType::F16 ? attn::halfToFloat(h) : attn::bf16ToFloat(h);
    }
    return true;
  }
  const BlockFn fn = blockDecoder(type);
  const GgmlTypeTraits* traits = ggmlTypeTraits(type);
  // Checked in release builds too: a caller passing a type read from a file must not crash.
  if (!fn || !traits || n % traits->blockElements != 0) return false;
  const auto* b = reinterpret_cast<const uint8_t*>(src);
  for (int64_t i = 0; i < n / traits->blockElements; ++i)
    fn(b + i * traits->blockBytes, dst + i * traits->blockElements);
  return true;
}

}  // namespace attn::models::gguf
