#include "attn/cuda/half_bits.h"

#include <cmath>

#include "attn/variants/precision.h"

namespace attn::gpu {

uint16_t toHalfBits(float x) {
  const float r = variants::roundToHalf(x);  // exactly representable now
  const uint16_t sign = std::signbit(r) ? 0x8000u : 0u;
  const float a = std::fabs(r);
  if (std::isnan(a)) return 0x7e00u;
  if (std::isinf(a)) return static_cast<uint16_t>(sign | 0x7c00u);
  if (a == 0.0f) return sign;
  int e = 0;
  const float m = std::frexp(a, &e);  // a = m 2^e, m in [0.5, 1)
  if (e - 1 < -14)  // subnormal: a = mant 2^-24
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::ldexp(a, 24)));
  const auto mant = static_cast<uint16_t>(std::ldexp(m, 11)) & 0x3ffu;  // drop the leading 1
  return static_cast<uint16_t>(sign | ((e - 1 + 15) << 10) | mant);
}

uint16_t toBf16Bits(float x) {
  const float r = variants::roundToBf16(x);
  uint32_t bits;
  std::memcpy(&bits, &r, sizeof bits);
  return static_cast<uint16_t>(bits >> 16);
}

}  // namespace attn::gpu
