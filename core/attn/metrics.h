#pragma once
// Per-row and per-head measures of attention weights.
#include "attn/tensor.h"

namespace attn {

/// Row entropy H_i = -sum_j a_ij log a_ij in nats (Clark et al. 2019);
/// zero weights (masked keys) contribute nothing; an all-zero row gives 0.
Vec rowEntropy(const Eigen::Ref<const Mat>& weights);

}  // namespace attn
