#pragma once
// Linear attention: softmax(q . k) replaced by a feature-map kernel
// phi(q) . phi(k), so the output is phi(Q) (phi(K)^T V) / phi(Q) (phi(K)^T 1)
// in O(N m d) time (Katharopoulos et al. 2020, eq. 4-6; causal form eq. 8-9
// with running sums). The implied attention matrix, row-normalized
// phi(Q) phi(K)^T, is materialized only for viewing.
#include <cstdint>

#include "attn/tensor.h"

namespace attn {

/// m x d projection for Performer's FAVOR+ (Choromanski et al. 2021, sec. 2.4):
/// blocks of d orthogonal directions (QR of a Gaussian matrix) whose rows are
/// rescaled to the norms of independent Gaussian vectors (chi(d)), so each row
/// is marginally N(0, I_d) while the rows of a block stay orthogonal.
Mat orthogonalRandomFeatures(int m, int d, uint64_t seed);

/// Positive random features (Choromanski et al. 2021, Lemma 1):
/// phi(x) = exp(w_i . x - |x|^2 / 2) / sqrt(m), so E[phi(x) . phi(y)] = exp(x . y).
/// x should already carry the softmax scale (x = sqrt(scale) q). A stabilizing
/// constant is subtracted in the exponent: per row for queries (cancels in the
/// row normalization), one global constant for keys (cancels likewise).
Mat favorFeatures(const Mat& x, const Mat& w, bool perRowStabilizer);

/// elu(x) + 1, the feature map of Katharopoulos et al. 2020 (sec. 3.2.1).
Mat eluFeatures(const Mat& x);

/// Output by the linear-time form; key j is seen by query i when !causal or j <= i.
/// Rows whose normalizer is not positive get a zero output.
Mat linearAttentionOutput(const Mat& phiQ, const Mat& phiK, const Mat& v, bool causal);

/// The implied attention matrix: row-normalized phi(Q) phi(K)^T, causal cells 0.
Mat linearAttentionWeights(const Mat& phiQ, const Mat& phiK, bool causal);

}  // namespace attn
