#pragma once
// Greedy decoding's next token without reading the whole f32 output projection at every step.
// Each step of a greedy search needs only the argmax of x W^T + b, yet the product reads every
// row of W (a Marian model's 65,001 x 512 embedding: 133 MB a token, more than its whole
// decoder). An int8 copy of W with one scale per row gives every logit within a proven bound:
//   |x.w_r - s_r (x.q_r)| = |x.(w_r - s_r q_r)| <= ||x|| ||w_r - s_r q_r||   (Cauchy-Schwarz),
// plus the float rounding of the int8 product (Higham, "Accuracy and Stability of Numerical
// Algorithms", 2nd ed., eq. 3.5: |fl(x.y) - x.y| <= gamma_n |x|.|y|). Only the rows whose upper
// bound reaches the best lower bound can hold the argmax; those few are computed exactly (in
// double from the f32 weights) and the largest taken, so the token is the argmax of the exact
// logits: a quarter of the bytes read, the same answer.
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "attn/models/model_weights.h"

namespace attn::models {

class ArgmaxScreen {
 public:
  /// From an f32 [V, d] matrix (nn.Linear's [out, in]); null for BF16 or quantized storage,
  /// for an empty matrix and for one with a non-finite entry.
  static std::unique_ptr<ArgmaxScreen> build(const WeightTensor& w);

  /// argmax over rows r not in `bannedSorted` (ascending) of x.w_r + bias[r] (bias null: none),
  /// the smallest r on ties, as torch.argmax; 0 when every row is banned (as greedyNextToken);
  /// -1 when x has a non-finite entry (the caller then takes the full product).
  int argmax(const float* x, const float* bias, const std::vector<int>& bannedSorted) const;

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  /// The int8 copy's size and the per-row tables.
  int64_t bytes() const;
  /// The rows the last argmax() computed exactly (a measure of the screen's selectivity).
  int64_t lastCandidates() const { return lastCandidates_.load(std::memory_order_relaxed); }

 private:
  void approximate(const float* xPadded, const float* bias, float* out) const;

  const float* w_ = nullptr;                  // the f32 rows (in the model's mapping)
  int64_t rows_ = 0, cols_ = 0, stride_ = 0;  // stride_: cols_ rounded up to 64 bytes of int8
  FloatBuffer qStore_;  // rows_ x stride_ int8, zero padded, in huge pages (model_weights.h)
  int8_t* q_ = nullptr;
  std::vector<float> scale_;        // s_r = max|w_r| / 127
  std::vector<double> err_, norm_;  // ||w_r - s_r q_r||, ||w_r||
  // argmax() may run on several threads at once.
  mutable std::atomic<int64_t> lastCandidates_{0};
};

}  // namespace attn::models
