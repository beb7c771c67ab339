#pragma once
// A large dense product split by rows over the OpenMP threads. The engine is
// built with EIGEN_DONT_PARALLELIZE (one level of parallelism, docs/performance.md),
// so without this the W_Q/W_K/W_V/W_O projections (4 x 2 N d^2 flops: 2.4
// GFLOP at N = 512, d = 768, three times the attention itself) ran on one core
// while the other idled. Called outside any parallel region.
#include "attn/tensor.h"

namespace attn {

/// a * b, rows of a shared among the threads when the product is large enough
/// to pay for them (equal to a * b up to float summation order).
Mat parallelProduct(const Mat& a, const Mat& b);

}  // namespace attn
