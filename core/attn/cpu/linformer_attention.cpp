#include "attn/cpu/linformer_attention.h"

#include <cmath>

#include "attn/engine/random.h"

namespace attn {

Mat linformerProjection(int k, int n, uint64_t seed) {
  SeededRng rng(seed);
  const double sd = 1.0 / std::sqrt(static_cast<double>(k));
  Mat p(k, n);
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < n; ++j) p(i, j) = static_cast<float>(rng.normal() * sd);
  return p;
}

void linformerAttention(const Mat& q, const Mat& k, const Mat& v, float scale, const Mat& e,
                        const Mat& f, Mat& weights, Mat& output) {
  const Mat kProj = e * k;  // [slots, dk]
  const Mat vProj = f * v;  // [slots, dv]
  weights.noalias() = (q * scale) * kProj.transpose();
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    auto row = weights.row(i).array();
    row = (row - row.maxCoeff()).exp();
    row /= row.sum();
  }
  output.noalias() = weights * vProj;
}

}  // namespace attn
