#include "attn/models/lens/logit_lens.h"

#include <algorithm>
#include <cmath>

namespace attn::models {

LensCell lensCell(const float* l, int vocab, int k, int finalId) {
  LensCell cell;
  k = std::max(0, std::min(k, vocab));
  if (vocab <= 0) return cell;
  const float m = *std::max_element(l, l + vocab);
  double sum = 0;
  for (int j = 0; j < vocab; ++j) sum += std::exp(static_cast<double>(l[j]) - m);
  // The k largest by one pass with a sorted list of k (k is 5: cheaper than sorting the
  // vocabulary); scanning ids upwards and inserting only on a strictly larger logit
  // keeps ties in the order of the smaller id.
  std::vector<int>& top = cell.ids;
  top.reserve(static_cast<size_t>(k) + 1);
  for (int j = 0; j < vocab && k > 0; ++j) {
    if (static_cast<int>(top.size()) == k && !(l[j] > l[top.back()])) continue;
    auto at = std::upper_bound(top.begin(), top.end(), j, [l](int a, int b) { return l[a] > l[b]; });
    top.insert(at, j);
    if (static_cast<int>(top.size()) > k) top.pop_back();
  }
  for (int id : top) cell.probs.push_back(static_cast<float>(std::exp(static_cast<double>(l[id]) - m) / sum));
  if (finalId < 0 || finalId >= vocab) finalId = static_cast<int>(std::max_element(l, l + vocab) - l);
  const float lf = l[finalId];
  int rank = 0;
  for (int j = 0; j < vocab; ++j) rank += l[j] > lf || (l[j] == lf && j < finalId);
  cell.finalId = finalId;
  cell.finalRank = rank;
  cell.finalProb = static_cast<float>(std::exp(static_cast<double>(lf) - m) / sum);
  return cell;
}

}  // namespace attn::models
