#pragma once
// How alike two heads attend: Jensen-Shannon divergence of their rows.
#include <cstdint>
#include <vector>

#include "attn/analysis/entropy.h"

namespace attn {

/// How the head divergence matrix averages over query rows: every row
/// (exact), or a seeded uniform sample of rows without replacement (an
/// estimate with a stated bound), or exact unless Nq * Nk is large.
struct DivergenceOptions {
  enum class Mode { Auto, Exact, Sampled };
  Mode mode = Mode::Auto;
  int sampleRows = 2048;                          // rows drawn when sampling
  double confidence = 0.99;                       // of the bound, all pairs at once
  uint64_t seed = 0x5eedULL;
  /// Auto: exact while Nq * Nk is at most this and the pairs' cells H (H - 1) / 2 * Nq * Nk at
  /// most 66 times this (12 heads' pairs): more heads sample sooner.
  long long autoExactMaxCells = 8192LL * 8192LL;
};

/// Which computation ran. For a sample of n of the N rows, every pair's
/// estimate is within `bound` of its exact all-rows mean with probability at
/// least `confidence`, all pairs together: Hoeffding's inequality for sampling
/// without replacement with Serfling's factor (Serfling 1974, Ann. Statist.
/// 2(1), cor. 1.1), row divergences lying in [0, log 2], and a union bound over
/// the H(H-1)/2 pairs: bound = log 2 sqrt((1 - (n-1)/N) log(2P/(1-confidence)) / (2n)).
struct DivergenceInfo {
  bool sampled = false;
  int rowsUsed = 0;    // rows drawn (all rows when exact)
  int rowsTotal = 0;
  double bound = 0;    // in the analysis unit; 0 when exact
  double confidence = 0;
};

/// The rows the divergence averages over (1 = used) and what that means.
std::vector<char> divergenceRows(int nq, int nk, int heads, const DivergenceOptions& options,
                                 EntropyUnit unit, DivergenceInfo& info);

/// Per-pair sums of row divergences, one row at a time (the streamed analysis
/// and headSimilarityMatrix share it). Rows must sum to 1 (see jsReadyRow).
class PairDivergence {
 public:
  explicit PairDivergence(int heads);
  /// p[h]: head h's row (n entries), plogp[h]: its plogpRow sum; heads with
  /// hasMass[h] == 0 (no mass, or left out) are skipped. With `halves` the
  /// rows hold p_j / 2 (a caller that may overwrite its rows halves them once
  /// per head; each pair then saves a multiply per cell: mlogmSumOfHalves).
  void addRow(const std::vector<const float*>& p, const std::vector<double>& plogp,
              const std::vector<char>& hasMass, int n, bool halves = false);
  void merge(const PairDivergence& other);
  /// Mean over counted rows per pair: symmetric, zero diagonal.
  Mat matrix(EntropyUnit unit) const;

 private:
  int heads_;
  std::vector<double> sum_;
  std::vector<int> rows_;
};

/// The row itself when it sums to 1 within 1e-5, else a copy rescaled to 1
/// in `buffer` (jensenShannon's convention); null when it has no mass.
const float* jsReadyRow(const float* p, int n, std::vector<float>& buffer);

/// Jensen-Shannon divergence JS(P, Q) = 1/2 KL(P || M) + 1/2 KL(Q || M),
/// M = (P + Q) / 2 (Lin 1991), of two rows taken as distributions. Symmetric,
/// 0 iff P = Q, at most log 2 (1 bit). Clark et al. 2019 (section 6) use it to
/// compare heads.
double jensenShannon(const Eigen::Ref<const Eigen::RowVectorXf>& p,
                     const Eigen::Ref<const Eigen::RowVectorXf>& q, EntropyUnit unit = EntropyUnit::Nats);

/// Mean over rows of JS(a_i, b_i) for two heads of equal shape. Rows where
/// either head has no mass (fully masked) are skipped; none left gives 0.
double headJensenShannon(const Eigen::Ref<const Mat>& a, const Eigen::Ref<const Mat>& b,
                         EntropyUnit unit = EntropyUnit::Nats);

/// The H x H matrix of headJensenShannon between every pair of heads:
/// symmetric, zero diagonal. Heads must share one shape (asserted). Each
/// head's sum p log p is computed once per row, so a pair costs one
/// vectorized log per cell (jsRowFromSums); rows are shared among the OpenMP
/// threads; exact by default (`options` may ask for a sample).
Mat headSimilarityMatrix(const std::vector<Mat>& heads, EntropyUnit unit = EntropyUnit::Nats,
                         const DivergenceOptions& options = {}, DivergenceInfo* info = nullptr);
/// The same over heads held elsewhere (no copies); empty or mis-shaped heads give 0.
Mat headSimilarityMatrix(const std::vector<const Mat*>& heads, EntropyUnit unit = EntropyUnit::Nats,
                         const DivergenceOptions& options = {}, DivergenceInfo* info = nullptr);

/// An order of the heads that puts similar heads next to each other: the leaf
/// order of average-linkage agglomerative clustering (UPGMA) on the divergence
/// matrix, merging the closest pair first (ties: lowest head indices) and
/// keeping the earlier cluster on the left.
std::vector<int> similarityOrder(const Mat& divergence);

}  // namespace attn
