#pragma once
// Row entropy and the notion of "unmasked key" every other measure shares.
#include <Eigen/Core>
#include <vector>

#include "attn/tensor.h"

namespace attn {

enum class EntropyUnit { Nats, Bits };

/// Which keys each query row may attend to (true = kept), [Nq, Nk]. An empty
/// KeepMask means "the keys whose weight is non-zero": the only information a
/// precomputed weight file carries.
using KeepMask = Eigen::Array<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// The mask an engine run used: a key is kept where its masked logit is not -inf.
KeepMask keepMaskFromLogits(const Eigen::Ref<const Mat>& maskedLogits);

/// Number of kept keys per row (see KeepMask for the empty-mask rule).
std::vector<int> keptKeyCounts(const Eigen::Ref<const Mat>& weights, const KeepMask& keep = {});

/// Row entropy H_i = -sum_j a_ij log a_ij (Clark et al. 2019, "What does BERT
/// look at?", section 3), in nats or bits. Masked keys have a_ij = 0 and add
/// nothing (0 log 0 = 0), so the sum runs over unmasked keys; an all-zero
/// (fully masked) row gives 0. Bounds: 0 <= H_i <= log(#unmasked keys).
Vec rowEntropy(const Eigen::Ref<const Mat>& weights, EntropyUnit unit = EntropyUnit::Nats);

/// Normalized entropy H_i / log(n_i), n_i = number of unmasked keys of row i,
/// in [0, 1] and unit-free: 1 is uniform over the allowed keys, 0 one-hot.
/// Rows with n_i <= 1 have no choice to make and give 0 (never 0/0 = NaN).
Vec normalizedRowEntropy(const Eigen::Ref<const Mat>& weights, const KeepMask& keep = {});

/// The same from row entropies in nats and kept-key counts already at hand.
Vec normalizedFromEntropy(const Vec& entropyNats, const std::vector<int>& keptKeys);

/// log(n) in the unit: the entropy of uniform attention over n keys.
double uniformEntropy(int n, EntropyUnit unit = EntropyUnit::Nats);

}  // namespace attn
