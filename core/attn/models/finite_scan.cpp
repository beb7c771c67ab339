#include "attn/models/finite_scan.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace attn::models {
namespace {

// A narrow counter per block keeps the loops vectorized: an int64 reduction of a comparison left
// them scalar, one value a cycle (0.45 s of a Llama-1B BF16 folder's open on two Zen 5 cores,
// 0.08 s vectorized).
int64_t countNonFiniteF32(const float* p, int64_t n) {
  int64_t bad = 0;
  for (int64_t i0 = 0; i0 < n; i0 += 65536) {
    const int64_t m = std::min<int64_t>(65536, n - i0);
    uint32_t c = 0;
    for (int64_t i = 0; i < m; ++i) {
      uint32_t b;
      std::memcpy(&b, p + i0 + i, 4);
      c += (b & 0x7F800000u) == 0x7F800000u;
    }
    bad += c;
  }
  return bad;
}

/// 16-bit values whose exponent field is `mask` (BF16 0x7F80, F16 0x7C00) are NaN or Inf.
int64_t countNonFinite16(const char* p, int64_t n, uint16_t mask) {
  int64_t bad = 0;
  for (int64_t i0 = 0; i0 < n; i0 += 32768) {  // a 16-bit count cannot wrap within a block
    const int64_t m = std::min<int64_t>(32768, n - i0);
    uint16_t c = 0;
    for (int64_t i = 0; i < m; ++i) {
      uint16_t b;
      std::memcpy(&b, p + 2 * (i0 + i), 2);  // the mapping may not be 2-byte aligned
      c = static_cast<uint16_t>(c + ((b & mask) == mask));
    }
    bad += c;
  }
  return bad;
}

}  // namespace

/// One region for every span rather than one per tensor: one region per tensor made ViT-B's ~200
/// tensors wait ~200 times for every thread to be scheduled, which on a loaded machine cost more
/// than the scan.
std::vector<int64_t> nonFiniteCounts(const std::vector<FiniteSpan>& spans) {
  constexpr int64_t kChunk = int64_t{1} << 14;
  std::vector<std::pair<size_t, int64_t>> chunks;  // (span, first value)
  for (size_t t = 0; t < spans.size(); ++t)
    for (int64_t i0 = 0; i0 < spans[t].n; i0 += kChunk) chunks.emplace_back(t, i0);
  std::vector<int64_t> bad(spans.size(), 0);
#pragma omp parallel for schedule(dynamic, 16) if (chunks.size() > 16)
  for (size_t c = 0; c < chunks.size(); ++c) {
    const auto [t, i0] = chunks[c];
    const FiniteSpan& k = spans[t];
    const int64_t m = std::min(kChunk, k.n - i0);
    const int64_t b = k.bf16  ? countNonFinite16(k.bf16 + 2 * i0, m, 0x7F80u)
                      : k.f16 ? countNonFinite16(k.f16 + 2 * i0, m, 0x7C00u)
                              : countNonFiniteF32(k.f32 + i0, m);
    if (b != 0) {
#pragma omp atomic
      bad[t] += b;
    }
  }
  return bad;
}

std::optional<NonFinite> firstNonFinite(const std::vector<FiniteSpan>& spans, const WeightsIdentity& id,
                                        int64_t bytes) {
  if (spans.empty() || knownFinite(id)) {
    countFiniteCheck(bytes, true);
    return std::nullopt;
  }
  const std::vector<int64_t> bad = nonFiniteCounts(spans);
  countFiniteCheck(bytes, false);
  for (size_t i = 0; i < bad.size(); ++i)
    if (bad[i] != 0) return NonFinite{i, bad[i]};
  rememberFinite(id);
  return std::nullopt;
}

}  // namespace attn::models
