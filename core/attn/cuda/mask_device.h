#pragma once
// A procedural mask as plain data the GPU can read: Mask::allowed(i, j)
// (attn/masks/mask.h) rewritten over POD terms whose arrays (global indices, padding
// and custom keep bitmaps) live in device memory on the GPU and in host memory
// in the CPU emulation. Same composition rule: restricting terms intersect,
// pattern terms form a union.
#include <cstdint>

#include "attn/cuda/hd.h"

namespace attn::gpu {

enum class TermKind : int32_t { Causal, Padding, Window, Dilated, Global, Block, Random, Custom, Window2d };

struct MaskTermView {
  TermKind kind = TermKind::Causal;
  int32_t restricts = 0;          // 1: causal, padding (intersect); 0: pattern (union)
  int64_t a = 0, b = 0;           // as MaskTerm::a, MaskTerm::b
  double p = 0.0;                 // random probability
  uint64_t seed = 0;              // random seed
  const int64_t* indices = nullptr;  // global: sorted, unique
  int32_t numIndices = 0;
  const uint8_t* keep = nullptr;  // padding: [cols] key validity; custom: [rows, cols]
  int32_t rows = 0, cols = 0;
  int32_t hasKeep = 0;            // padding bound to tokens / custom given its bitmap
};

inline constexpr int kMaxMaskTerms = 16;

struct MaskView {
  int32_t numTerms = 0;  // 0: nothing masked
  MaskTermView terms[kMaxMaskTerms];
};

// SplitMix64 finalizer, bit for bit the one in mask.cpp.
ATTN_HD_INLINE uint64_t maskMix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

ATTN_HD_INLINE int64_t maskAbs(int64_t x) { return x < 0 ? -x : x; }

ATTN_HD_INLINE bool sortedContains(const int64_t* v, int32_t n, int64_t x) {
  int32_t lo = 0, hi = n;  // binary search in [lo, hi)
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo) / 2;
    if (v[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && v[lo] == x;
}

ATTN_HD_INLINE bool termAllows(const MaskTermView& t, int i, int j) {
  const int64_t d = static_cast<int64_t>(i) - j;
  switch (t.kind) {
    case TermKind::Causal: return j <= i;
    case TermKind::Padding:
      if (t.hasKeep) return j < t.cols && t.keep[j] != 0;
      return t.a < 0 || j < t.a;
    case TermKind::Window: return maskAbs(d) <= t.a;
    case TermKind::Dilated: return maskAbs(d) <= t.a * t.b && d % t.b == 0;
    case TermKind::Global:
      return sortedContains(t.indices, t.numIndices, i) || sortedContains(t.indices, t.numIndices, j);
    case TermKind::Block: return i / t.a == j / t.a;
    case TermKind::Random: {
      const uint64_t h = maskMix64(maskMix64(t.seed ^ maskMix64(static_cast<uint64_t>(i))) ^
                                   static_cast<uint64_t>(j));
      return static_cast<double>(h >> 11) * 0x1.0p-53 < t.p;
    }
    case TermKind::Custom:
      return t.hasKeep && i < t.rows && j < t.cols &&
             t.keep[static_cast<int64_t>(i) * t.cols + j] != 0;
    case TermKind::Window2d:
      if (t.b <= 0) return false;
      return maskAbs(i / t.b - j / t.b) <= t.a && maskAbs(i % t.b - j % t.b) <= t.a;
  }
  return true;
}

ATTN_HD_INLINE bool maskAllowed(const MaskView& m, int i, int j) {
  bool anyPattern = false, patternAllows = false;
  for (int32_t n = 0; n < m.numTerms; ++n) {
    const MaskTermView& t = m.terms[n];
    if (t.restricts) {
      if (!termAllows(t, i, j)) return false;
    } else if (!patternAllows) {
      anyPattern = true;
      patternAllows = termAllows(t, i, j);
    }
  }
  return !anyPattern || patternAllows;
}

}  // namespace attn::gpu
