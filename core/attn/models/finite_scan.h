#pragma once
// NaN and Inf among a model's weights, found by the exponent bits: the engine is built with
// fast-math flags, under which std::isfinite may be folded to true.
#include <cstdint>
#include <optional>
#include <vector>

#include "attn/models/verified_weights.h"

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

/// The first span holding NaN or Inf and how many, or none. `spans` are not read when `id` (the
/// files and tensors they come from) is in the record of files found finite before, and `id` is
/// added to it when they are all finite (verified_weights.h); `bytes` (their size in the files)
/// is counted as scanned or remembered for `run --profile`.
struct NonFinite {
  size_t span = 0;
  int64_t count = 0;
};
std::optional<NonFinite> firstNonFinite(const std::vector<FiniteSpan>& spans, const WeightsIdentity& id,
                                        int64_t bytes);

}  // namespace attn::models
