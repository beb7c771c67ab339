#pragma once
// Linformer (Wang et al. 2020, eq. 7): keys and values are projected along the
// sequence to k slots, K' = E K and V' = F V with E, F in R^{k x N}, and
// attention is softmax(scale Q K'^T) V': an N x k map, linear in N.
// E and F are seeded i.i.d. N(0, 1/k) (the Johnson-Lindenstrauss projections
// of the paper's Theorem 1/2). The paper learns them; untrained random
// projections do not converge to exact attention as k grows, which the
// reported output error makes visible.
#include <cstdint>

#include "attn/tensor.h"

namespace attn {

/// k x n projection with i.i.d. N(0, 1/k) entries.
Mat linformerProjection(int k, int n, uint64_t seed);

/// weights [Nq, k] (rows sum to 1) and output [Nq, dv].
void linformerAttention(const Mat& q, const Mat& k, const Mat& v, float scale, const Mat& e,
                        const Mat& f, Mat& weights, Mat& output);

}  // namespace attn
