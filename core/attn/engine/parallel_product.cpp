#include "attn/engine/parallel_product.h"

#include <algorithm>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attn {

Mat parallelProduct(const Mat& a, const Mat& b) {
  Mat y(a.rows(), b.cols());
  const double flops = 2.0 * static_cast<double>(a.rows()) * static_cast<double>(a.cols()) * static_cast<double>(b.cols());
  int threads = 1;
#ifdef _OPENMP
  if (flops > 2e7 && !omp_in_parallel()) threads = std::max(1, omp_get_max_threads());
#endif
  // Row chunks of at least 32 rows (a register-block multiple), one per thread.
  const Eigen::Index rows = a.rows();
  const int chunks = static_cast<int>(std::max<Eigen::Index>(1, std::min<Eigen::Index>(threads, rows / 32)));
  if (chunks <= 1) {
    y.noalias() = a * b;
    return y;
  }
#pragma omp parallel for num_threads(chunks) schedule(static, 1)
  for (int c = 0; c < chunks; ++c) {
    const Eigen::Index r0 = rows * c / chunks, r1 = rows * (c + 1) / chunks;
    y.middleRows(r0, r1 - r0).noalias() = a.middleRows(r0, r1 - r0) * b;
  }
  return y;
}

}  // namespace attn
