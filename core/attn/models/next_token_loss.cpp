#include "attn/models/next_token_loss.h"

#include <algorithm>
#include <cmath>
#include <limits>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attn::models {

double fusedNextTokenLoss(const ConstMatRef& hidden, const WeightTensor& w, const std::vector<int>& rows,
                          const std::vector<int>& targets) {
  const Eigen::Index R = static_cast<Eigen::Index>(rows.size()), d = hidden.cols(), V = w.rows;
  Mat x(R, d);
  for (Eigen::Index r = 0; r < R; ++r) x.row(r) = hidden.row(rows[static_cast<size_t>(r)]);
  // Panels of P vocabulary rows: the panel's logits [R, P] (~256 KB) stay in L2 while they are
  // reduced, and each product is still large enough for the GEMM kernel to run at full rate.
  const Eigen::Index P = std::clamp<Eigen::Index>(((Eigen::Index{1} << 16) / std::max<Eigen::Index>(R, 1)) / 16 * 16, 64, 2048);
  const Eigen::Index panels = (V + P - 1) / P;
  int threads = 1;
#ifdef _OPENMP
  if (!omp_in_parallel()) threads = static_cast<int>(std::min<Eigen::Index>(omp_get_max_threads(), panels));
#endif
  // Per thread: running max and sum of exp(l - max) per row, and the target logits it met.
  std::vector<Eigen::VectorXf> maxes(static_cast<size_t>(threads));
  std::vector<Eigen::VectorXd> sums(static_cast<size_t>(threads)), picked(static_cast<size_t>(threads));
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    int t = 0;
#ifdef _OPENMP
    if (threads > 1) t = omp_get_thread_num();
#endif
    Eigen::VectorXf& mx = maxes[static_cast<size_t>(t)];
    Eigen::VectorXd& sm = sums[static_cast<size_t>(t)];
    Eigen::VectorXd& pk = picked[static_cast<size_t>(t)];
    mx.setConstant(R, -std::numeric_limits<float>::infinity());
    sm.setZero(R);
    pk.setZero(R);
    Mat logits, wp;
#pragma omp for schedule(static)
    for (Eigen::Index p = 0; p < panels; ++p) {
      const Eigen::Index v0 = p * P, m = std::min(P, V - v0);
      logits.resize(R, m);
      if (w.isPacked()) {
        wp.resize(m, d);
        w.rowsTo(v0, m, wp.data());
        logits.noalias() = x * wp.transpose();
      } else {
        logits.noalias() = x * w.mat().middleRows(v0, m).transpose();
      }
      for (Eigen::Index r = 0; r < R; ++r) {
        const auto row = logits.row(r).array();
        const float pm = row.maxCoeff();
        if (pm > mx(r)) {
          if (sm(r) > 0) sm(r) *= std::exp(static_cast<double>(mx(r)) - pm);
          mx(r) = pm;
        }
        sm(r) += static_cast<double>((row - mx(r)).exp().sum());
        const int target = targets[static_cast<size_t>(r)];
        if (target >= v0 && target < v0 + m) pk(r) = logits(r, target - v0);
      }
    }
  }
  double total = 0;
  for (Eigen::Index r = 0; r < R; ++r) {
    float m = -std::numeric_limits<float>::infinity();
    for (const auto& mx : maxes) m = std::max(m, mx(r));
    double s = 0, target = 0;
    for (size_t t = 0; t < maxes.size(); ++t) {
      if (sums[t](r) > 0) s += sums[t](r) * std::exp(static_cast<double>(maxes[t](r)) - m);
      target += picked[t](r);  // exactly one thread met the target's panel
    }
    total += static_cast<double>(m) + std::log(s) - target;
  }
  return total / static_cast<double>(R);
}

}  // namespace attn::models
