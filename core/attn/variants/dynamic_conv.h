#pragma once
// Dynamic convolution (Wu et al. 2019, "Pay Less Attention with Lightweight
// and Dynamic Convolutions", eq. 2-3): at every position i a kernel of width k
// is predicted from x_i alone, f(x_i) = x_i W (one kernel per head), softmax-
// normalised over its k taps, and applied to the window of inputs around i:
//   o_(i,c) = sum_t softmax(f(x_i))_(h(c),t) x_(i + t - p, c),
// p = k - 1 when causal (the window ends at i), k / 2 otherwise (centred).
// Read as attention it is a banded map: row i holds the k kernel weights at
// columns i - p .. i - p + k - 1, zero elsewhere. Taps that fall outside the
// sequence read the zero padding (as fairseq's implementation), so those rows
// sum to less than 1.
#include <cstdint>
#include <vector>

#include "attn/engine/init.h"
#include "attn/status.h"
#include "attn/tensor.h"

namespace attn::variants {

struct DynamicConvHead {
  Mat kernelLogits;   // [N, k]: f(x_i) for this head
  Mat kernel;         // [N, k]: softmax over the taps
  Mat banded;         // [N, N]: the equivalent attention map
  Mat output;         // [N, channels of the head]: banded * x[:, channels]
  Vec entropy;        // kernel entropy per row (nats)
  int firstChannel = 0, channels = 0;
};

struct DynamicConvResult {
  int kernelWidth = 0;
  bool causal = true;
  int offset = 0;  // p
  std::vector<DynamicConvHead> heads;
};

/// W [d_model, heads * k] seeded: kernel logits of head h are columns h*k .. h*k+k-1.
Mat seededDynamicConvWeights(int dModel, int heads, int kernelWidth, InitScheme init, uint64_t seed);

/// Runs over x [N, d_model] with `heads` heads (d_model divisible by heads).
Result<DynamicConvResult> dynamicConvolution(const Mat& x, const Mat& w, int heads, int kernelWidth, bool causal);

}  // namespace attn::variants
