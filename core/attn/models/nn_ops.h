#pragma once
// The layers a transformer forward pass is built from, over all tokens at once
// (rows are tokens), in f32 as the Hugging Face modeling code runs on the CPU.
#include <Eigen/Core>
#include <limits>
#include <utility>
#include <vector>

#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"
#include "attn/tensor.h"

namespace attn::models {

using ConstMatRef = Eigen::Ref<const Mat>;

/// OpenMP threads for a step of about `flops` operations: all of them for a large step outside a
/// parallel region, one otherwise (a small step costs more to fork than to run).
int threadsFor(double flops);

/// y = x W^T + b (nn.Linear) or x W + b (Conv1D). Output columns are shared among
/// the OpenMP threads when the product is large enough (call outside parallel regions).
void linear(const ConstMatRef& x, const LinearWeight& w, Mat& y);
/// torch.nn.functional.layer_norm over each row: (x - mean) / sqrt(var + eps) * gamma + beta.
void layerNorm(const ConstMatRef& x, const NormWeight& n, double eps, Mat& y);
/// LlamaRMSNorm: x / sqrt(mean(x^2) + eps) * gamma, in f32.
void rmsNorm(const ConstMatRef& x, const NormWeight& n, double eps, Mat& y);
/// h += o (the residual stream), rows over the threads when large (call outside parallel regions).
void addResidual(Mat& h, const Mat& o);
/// dst = src.middleCols(c0, cols), rows over the threads when large (call outside parallel regions).
void copyColumns(const Mat& src, Eigen::Index c0, Eigen::Index cols, Mat& dst);
/// gelu_new (tanh approximation, GPT-2), erf GELU (BERT), ReLU, SiLU or quick GELU (CLIP), in place.
void activate(Mat& x, Activation a);

/// cos / sin of RoPE per position and dimension [n, headDim], halves repeated, as
/// LlamaRotaryEmbedding builds them (inv_freq = theta^(-2i/d) in f32, optionally scaled).
struct RopeTable {
  Mat cos, sin;
};
RopeTable ropeTable(int n, int headDim, double theta, const RopeScaling& scaling);
/// x * cos + rotate_half(x) * sin on every head of x [n, heads * headDim],
/// rotate_half(x) = cat(-x[d/2:], x[:d/2]) (transformers' apply_rotary_pos_emb).
void applyRope(Mat& x, int headDim, const RopeTable& t);
/// Undoes llama.cpp's converter permutation of q/k rows on the product: within each head of x
/// [n, heads * headDim], column 2i + j moves to j * headDim / 2 + i (j = 0, 1), the order of the
/// Hugging Face weights whose rotate_half RoPE applyRope computes.
void deinterleaveHeads(Mat& x, int headDim);

/// The `k` most probable tokens of one logits row [vocab]: softmax with the max subtracted,
/// the normalizer summed in double, ties by the smaller id; k is clamped to [0, vocab]; no
/// display text.
std::vector<TopToken> softmaxTopK(const float* logits, int vocab, int k);

/// softmaxTopK over a row that arrives in consecutive pieces (the lm_head's logits a panel of
/// vocabulary rows at a time, never all stored): the online softmax's running max and normalizer
/// (Milakov & Gimelshein 2018, "Online normalizer calculation for softmax", algorithm 3) and the
/// k best logits so far.
class RunningTopK {
 public:
  explicit RunningTopK(int k) : k_(k > 0 ? k : 0) {}
  /// Logits of the ids [first, first + n), each piece after every smaller id.
  void add(const float* logits, int n, int first);
  /// The best min(k, ids seen), most probable first.
  std::vector<TopToken> result() const;

 private:
  int k_;
  float max_ = -std::numeric_limits<float>::infinity();
  double sum_ = 0;
  std::vector<std::pair<float, int>> best_;  // descending; equal logits by ascending id
};

}  // namespace attn::models
