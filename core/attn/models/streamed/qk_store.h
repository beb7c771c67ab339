#pragma once
// What a streamed forward keeps of each layer's attention so that any map can
// be recomputed later: the post-RoPE queries and keys (one copy per KV head,
// never repeated per query head), the logit scale and the model's mask.
// Storage is F16 or BF16 (half the bytes, L x N x (H + KV) x head_dim x 2) or
// F32 (exact: a recomputed map then equals the forward's map to rounding).
#include <cstdint>
#include <string>
#include <vector>

#include "attn/masks/mask.h"
#include "attn/tensor.h"

namespace attn::models {

enum class QkPrecision { F32, F16, BF16 };
/// "f32", "f16", "bf16".
const char* qkPrecisionName(QkPrecision p);

class QkStore {
 public:
  QkStore() = default;
  QkStore(int layers, int tokens, int heads, int kvHeads, int headDim, QkPrecision precision, Mask mask);

  /// Layer l's q [N, H * hd] and k [N, KV * hd], as the attention reads them (after RoPE),
  /// and the scale the logits are multiplied by.
  void setLayer(int layer, const Mat& q, const Mat& k, float scale);

  /// Rows [r0, r1) of query head h in layer l, as F32 [r1 - r0, hd].
  Mat queries(int layer, int head, int r0, int r1) const;
  /// Rows [r0, r1) of the keys query head h reads (its KV head h / (H / KV)), F32.
  Mat keys(int layer, int head, int r0, int r1) const;

  int layers() const { return layers_; }
  int tokens() const { return tokens_; }
  int heads() const { return heads_; }
  int kvHeads() const { return kvHeads_; }
  int headDim() const { return headDim_; }
  QkPrecision precision() const { return precision_; }
  float scale(int layer) const { return scales_[static_cast<size_t>(layer)]; }
  const Mask& mask() const { return mask_; }

  /// Bytes held (what `run --profile` and `info` print).
  int64_t bytes() const;
  /// Bytes a store of this shape will hold, before running anything.
  static int64_t bytesFor(int layers, int tokens, int heads, int kvHeads, int headDim, QkPrecision precision);

 private:
  // Per layer: head-major [heads][N][hd] (queries) and [kvHeads][N][hd] (keys), so a head's
  // row range is contiguous. F32 values live in f32_, halves in half_.
  struct Plane {
    std::vector<float> f32;
    std::vector<uint16_t> half;
  };
  void put(Plane& p, const Mat& m, int groups) const;
  Mat get(const Plane& p, int group, int r0, int r1) const;

  int layers_ = 0, tokens_ = 0, heads_ = 0, kvHeads_ = 0, headDim_ = 0;
  QkPrecision precision_ = QkPrecision::F16;
  Mask mask_;
  std::vector<Plane> q_, k_;
  std::vector<float> scales_;
};

}  // namespace attn::models
