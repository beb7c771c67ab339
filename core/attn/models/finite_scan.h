#pragma once
// NaN and Inf among a model's weights, found by the exponent bits: the engine is built with
// fast-math flags, under which std::isfinite may be folded to true.
#include <cstdint>
#include <vector>

namespace attn::models {

/// A run of weights to check: f32 values, or 16-bit ones (BF16 or F16) at any alignment.
struct FiniteSpan {
  const float* f32 = nullptr;
  const char* bf16 = nullptr;
  const char* f16 = nullptr;
  int64_t n = 0;  // values
};

/// Each span's count of non-finite values, from one OpenMP region over 16K-value pieces of every
/// span.
std::vector<int64_t> nonFiniteCounts(const std::vector<FiniteSpan>& spans);

}  // namespace attn::models
