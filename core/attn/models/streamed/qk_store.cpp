#include "attn/models/streamed/qk_store.h"

#include <cstring>

#include "attn/io/float_convert.h"

namespace attn::models {
namespace {

/// float32 to bfloat16, rounding to nearest even (NaN kept a NaN).
uint16_t floatToBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7FFFu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

}  // namespace

const char* qkPrecisionName(QkPrecision p) {
  switch (p) {
    case QkPrecision::F32:
      return "f32";
    case QkPrecision::F16:
      return "f16";
    case QkPrecision::BF16:
      return "bf16";
  }
  return "f16";
}

QkStore::QkStore(int layers, int tokens, int heads, int kvHeads, int headDim, QkPrecision precision,
                 Mask mask)
    : layers_(layers),
      tokens_(tokens),
      heads_(heads),
      kvHeads_(kvHeads),
      headDim_(headDim),
      precision_(precision),
      mask_(std::move(mask)),
      q_(static_cast<size_t>(layers)),
      k_(static_cast<size_t>(layers)),
      scales_(static_cast<size_t>(layers), 1.0f) {}

void QkStore::put(Plane& p, const Mat& m, int groups) const {
  const size_t n = static_cast<size_t>(tokens_), hd = static_cast<size_t>(headDim_);
  const size_t count = static_cast<size_t>(groups) * n * hd;
  if (precision_ == QkPrecision::F32)
    p.f32.resize(count);
  else
    p.half.resize(count);
  for (int g = 0; g < groups; ++g)
    for (size_t i = 0; i < n; ++i) {
      const float* src = &m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(g) * headDim_);
      const size_t at = (static_cast<size_t>(g) * n + i) * hd;
      if (precision_ == QkPrecision::F32)
        std::memcpy(&p.f32[at], src, hd * sizeof(float));
      else if (precision_ == QkPrecision::F16)
        for (size_t d = 0; d < hd; ++d) p.half[at + d] = floatToHalf(src[d]);
      else
        for (size_t d = 0; d < hd; ++d) p.half[at + d] = floatToBf16(src[d]);
    }
}

Mat QkStore::get(const Plane& p, int group, int r0, int r1) const {
  const size_t n = static_cast<size_t>(tokens_), hd = static_cast<size_t>(headDim_);
  Mat out(r1 - r0, headDim_);
  for (int i = r0; i < r1; ++i) {
    const size_t at = (static_cast<size_t>(group) * n + static_cast<size_t>(i)) * hd;
    float* dst = &out(i - r0, 0);
    if (precision_ == QkPrecision::F32) {
      for (size_t d = 0; d < hd; ++d) dst[d] = p.f32[at + d];
    } else if (precision_ == QkPrecision::F16) {
      for (size_t d = 0; d < hd; ++d) dst[d] = halfToFloat(p.half[at + d]);
    } else {
      for (size_t d = 0; d < hd; ++d) dst[d] = attn::bf16ToFloat(p.half[at + d]);
    }
  }
  return out;
}

void QkStore::setLayer(int layer, const Mat& q, const Mat& k, float scale) {
  const auto l = static_cast<size_t>(layer);
  put(q_[l], q, heads_);
  put(k_[l], k, kvHeads_);
  scales_[l] = scale;
}

Mat QkStore::queries(int layer, int head, int r0, int r1) const {
  return get(q_[static_cast<size_t>(layer)], head, r0, r1);
}

Mat QkStore::keys(int layer, int head, int r0, int r1) const {
  return get(k_[static_cast<size_t>(layer)], head / (heads_ / kvHeads_), r0, r1);
}

int64_t QkStore::bytes() const {
  int64_t b = 0;
  for (const auto* planes : {&q_, &k_})
    for (const Plane& p : *planes)
      b += static_cast<int64_t>(p.f32.size() * sizeof(float) + p.half.size() * sizeof(uint16_t));
  return b;
}

int64_t QkStore::bytesFor(int layers, int tokens, int heads, int kvHeads, int headDim,
                          QkPrecision precision) {
  const int64_t each = precision == QkPrecision::F32 ? 4 : 2;
  return static_cast<int64_t>(layers) * tokens * (static_cast<int64_t>(heads) + kvHeads) * headDim * each;
}

}  // namespace attn::models
