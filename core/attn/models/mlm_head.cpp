#include "attn/models/mlm_head.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attn::models {

void maskedLmLogits(const ConstMatRef& hidden, const MaskedLmHead& head, double eps, Mat& logits) {
  Mat t, a;
  linear(hidden, head.transform, t);
  activate(t, head.activation);
  layerNorm(t, head.norm, eps, a);
  LinearWeight decoder;
  decoder.w = head.decoder;
  decoder.b = head.bias;
  linear(a, decoder, logits);
}

std::vector<int> maskPositions(const std::vector<int>& ids, int maskId) {
  std::vector<int> out;
  if (maskId < 0) return out;
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] == maskId) out.push_back(static_cast<int>(i));
  return out;
}

std::vector<TopToken> topOfRow(const float* l, int V, int k) {
  k = std::max(0, std::min(k, V));
  std::vector<TopToken> row;
  if (k == 0) return row;
  const float m = *std::max_element(l, l + V);
  double sum = 0;
  for (int j = 0; j < V; ++j) sum += std::exp(static_cast<double>(l[j]) - m);
  std::vector<int> idx(static_cast<size_t>(V));
  std::iota(idx.begin(), idx.end(), 0);
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(),
                    [l](int a, int b) { return l[a] != l[b] ? l[a] > l[b] : a < b; });
  for (int r = 0; r < k; ++r) {
    const int id = idx[static_cast<size_t>(r)];
    row.push_back(TopToken{id, {}, static_cast<float>(std::exp(static_cast<double>(l[id]) - m) / sum)});
  }
  return row;
}

}  // namespace attn::models
