#include "attn/models/attribution/contributions.h"

#include <algorithm>

namespace attn::models {

Mat altiRollout(const std::vector<Mat>& alti, int through) {
  if (alti.empty()) return {};
  through = std::clamp(through, 0, static_cast<int>(alti.size()) - 1);
  Mat r = alti.front();
  for (int l = 1; l <= through; ++l) {
    Mat next = alti[static_cast<size_t>(l)] * r;
    r = std::move(next);
  }
  return r;
}

}  // namespace attn::models
