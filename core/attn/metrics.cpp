#include "attn/metrics.h"

#include <cmath>

namespace attn {

Vec rowEntropy(const Eigen::Ref<const Mat>& weights) {
  Vec h(weights.rows());
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    double s = 0.0;
    for (Eigen::Index j = 0; j < weights.cols(); ++j) {
      const double p = weights(i, j);
      if (p > 0.0) s -= p * std::log(p);
    }
    h[i] = static_cast<float>(s);
  }
  return h;
}

}  // namespace attn
