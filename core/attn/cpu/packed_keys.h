#pragma once
// Scores of query rows against keys packed once per head: the
// streamed analysis scores every head's keys for 48-96 query rows at a time,
// and Eigen's GEMM packed the whole key matrix again for every such block (a
// third of the kernel's rate at N = 4096). Here the keys are laid out once in
// panels of three SIMD vectors of keys, depth-major, and a micro-kernel (8
// query rows x one panel in registers with AVX-512, 4 with AVX2 or SSE) reads
// them as they are, faster than Eigen on these shapes (docs/performance.md).
//
// Each score is one fused multiply-add per depth index, in order, from zero,
// whatever the block of rows or the range of keys asked for, so the tiled
// kernel's weights (blockedAttentionWithWeights, tile by tile) and the
// streamed analysis (48-96 rows, every key) see bit-identical scores
// (tests/core/cpu/packed_keys_test.cpp).
#include <Eigen/Core>
#include <vector>

#include "attn/tensor.h"

namespace attn {

class PackedKeys {
 public:
  PackedKeys() = default;
  /// Packs k ([Nk, dk]).
  explicit PackedKeys(const Eigen::Ref<const Mat>& k) { pack(k); }
  /// Packs k, reusing this object's storage.
  void pack(const Eigen::Ref<const Mat>& k);
  /// Packs k in its own memory (each panel's rows transposed in place; the
  /// last panel padded): no fresh pages, whose first touch is expensive.
  void pack(Mat&& k);

  int keys() const { return keys_; }
  int depth() const { return depth_; }
  size_t bytes() const { return static_cast<size_t>(panels_.size()) * sizeof(float); }
  /// Keys per panel: three SIMD vectors (48 with AVX-512).
  static int panelKeys();
  /// Whether the multiply-adds are fused (one rounding), as they are where
  /// the core is built for FMA; otherwise a rounded product, then the sum.
  static bool fusedMultiplyAdd();

  /// out[a * ldOut + (j - j0)] = sum_d qs(a, d) k(j, d) for a < qs.rows(),
  /// j0 <= j < j1 (default: every key): q k^T for a block of (already scaled)
  /// query rows, summed over d in order with fused multiply-adds.
  void scores(const Eigen::Ref<const Mat>& qs, float* out, Eigen::Index ldOut, int j0 = 0, int j1 = -1) const;

 private:
  int keys_ = 0, depth_ = 0;
  Mat panels_;  // [panel][depth][panelKeys], as panels * panelKeys rows of depth floats
};

}  // namespace attn
