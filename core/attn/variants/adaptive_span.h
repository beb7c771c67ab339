#pragma once
// Adaptive attention span (Sukhbaatar et al. 2019, eq. 3-4): each head h has a
// span z_h; the weight on a key at distance x = |i - j| is multiplied by the
// soft mask m_z(x) = clamp((R + z - x) / R, 0, 1) and the row renormalised:
//   a'_ij = m_z(x) a_ij / sum_k m_z(x_k) a_ik
// (the same as masking the exponentials before normalising, eq. 4). R sets how
// soft the ramp is: keys within z count fully, the next R fade out linearly.
#include <vector>

#include "attn/engine.h"
#include "attn/status.h"
#include "attn/tensor.h"

namespace attn::variants {

/// m_z(x) = clamp((R + z - x) / R, 0, 1); R > 0.
double spanRamp(double distance, double z, double ramp);

struct SpanHead {
  double z = 0;
  Vec ramp;        // m_z(x) for x = 0..maxDistance
  Mat weights;     // renormalised, exactly 0 where m or a is 0
  Mat output;      // weights * v (empty when v is)
  Vec entropy;
  std::vector<int> emptyRows;  // rows the span hides entirely (all-zero weights)
  double meanSpan = 0;         // mean over rows of the number of keys left with weight > 0
};

/// Applies the span to one head's weights [Nq, Nk] (v [Nk, dv] may be empty).
/// Errors name the parameter at fault.
Result<SpanHead> adaptiveSpanHead(const Mat& weights, const Mat& v, double z, double ramp);

/// Every head of an engine result, z per head.
Result<std::vector<SpanHead>> adaptiveSpan(const AttentionResult& r, const std::vector<double>& z, double ramp);

/// One row's walk: distances, ramp values, weights before, m*a, the sum, after.
struct SpanRowWalk {
  int row = 0;
  double z = 0, ramp = 1;
  std::vector<int> distances;
  Vec mask, before, masked, after;
  double maskedSum = 0;
};
Result<SpanRowWalk> spanRowWalk(const Mat& weights, double z, double ramp, int row);

}  // namespace attn::variants
