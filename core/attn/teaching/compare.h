#pragma once
// Two attention maps of the same tokens side by side (compare mode): their
// difference and the metric deltas a class or a paper would quote.
#include <string>

#include "attn/engine.h"
#include "attn/status.h"

namespace attn {

struct CompareSummary {
  Mat difference;            // B - A, [Nq, Nk]
  float maxAbsDiff = 0.0f;   // max |B - A|
  float meanAbsDiff = 0.0f;  // mean |B - A| over all cells
  float entropyMeanA = 0.0f, entropyMeanB = 0.0f;  // mean row entropy, nats
  float entropyDelta() const { return entropyMeanB - entropyMeanA; }
  /// Fraction of query rows whose most-attended key is the same in A and B.
  float argmaxAgreement = 0.0f;
  /// Mean over rows of the Jensen-Shannon divergence between A's and B's rows
  /// (nats, 0..log 2; Lin 1991), symmetric and finite with masked zeros.
  float meanJsDivergence = 0.0f;
  /// With A as the exact reference (e.g. A dense, B a sparse mask or an
  /// approximate path): ||B - A||_F and mean row KL(A_i || B_i) in nats, as
  /// attn::approximationError computes them; NaN when it cannot (non-finite).
  double frobenius = 0.0;
  double meanRowKl = 0.0;
};

/// Compares two heads computed over the same tokens; an error says when the
/// shapes differ.
Result<CompareSummary> compareHeads(const HeadResult& a, const HeadResult& b);

}  // namespace attn
