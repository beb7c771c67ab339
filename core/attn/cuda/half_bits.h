#pragma once
// fp16 and bf16 as 16-bit patterns: decoded to float inside the kernels (plain
// bit arithmetic, so the CPU emulation decodes exactly as the GPU does) and
// encoded on the host, to nearest even, by the precision variants' rounding
// (core/attn/variants/precision.h).
#include <cstdint>
#include <cstring>

#include "attn/cuda/hd.h"

namespace attn::gpu {

ATTN_HD_INLINE float bitsToFloat(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

ATTN_HD_INLINE float halfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0) {  // zero or subnormal: mant * 2^-24, exact in float
    const float v = static_cast<float>(mant) * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  if (exp == 31) return bitsToFloat(sign | 0x7f800000u | (mant << 13));  // inf, nan
  return bitsToFloat(sign | ((exp + 112u) << 23) | (mant << 13));
}

ATTN_HD_INLINE float bf16ToFloat(uint16_t b) { return bitsToFloat(static_cast<uint32_t>(b) << 16); }

/// Host: x rounded to nearest even, as fp16 / bf16 bits (beyond fp16's range: inf).
uint16_t toHalfBits(float x);
uint16_t toBf16Bits(float x);

}  // namespace attn::gpu
