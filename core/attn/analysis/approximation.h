#pragma once
// How far an approximate attention (linear, low-rank, sparse) is from exact.
#include <string>
#include <vector>

#include "attn/status.h"
#include "attn/tensor.h"

namespace attn {

struct ApproximationError {
  double frobenius = 0;          // ||A - B||_F
  double relativeFrobenius = 0;  // ||A - B||_F / ||A||_F (0 when A = 0)
  double meanRowKl = 0;          // mean_i KL(a_i || b_i), nats, rows where a_i has mass
  double maxRowKl = 0;
  int worstRow = -1;             // row of maxRowKl
  int rowsCompared = 0;
  std::vector<std::string> warnings;  // rows of B without mass, negative entries
};

/// The floor under an approximate weight b_ij where a_ij > 0 in the KL
/// divergence, so that a key the approximation drops gives a large finite
/// divergence (about a_ij * 23 nats) instead of infinity.
inline constexpr double kKlFloor = 1e-10;

/// Frobenius distance of the weight matrices and mean row KL divergence
/// KL(a_i || b_i) = sum_j a_ij log(a_ij / b_ij) (Kullback & Leibler 1951), the
/// errors reported for efficient attention (e.g. Choromanski et al. 2021,
/// Performer, section 4). B's rows are clamped at 0 and rescaled to sum 1
/// before the KL (approximations need not be exactly stochastic); b_ij is
/// floored at kKlFloor. Rows where A has no mass (fully masked) are skipped.
/// Errors when the shapes differ or an entry is not finite.
Result<ApproximationError> approximationError(const Eigen::Ref<const Mat>& exact,
                                              const Eigen::Ref<const Mat>& approx);

}  // namespace attn
