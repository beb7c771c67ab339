#include "attn_ui/generation/step_attention.h"

#include <algorithm>
#include <numeric>

namespace attn::ui {

attn::Vec writtenTokenAttention(const attn::models::CausalGeneration& g, int layer, int head, int position) {
  if (layer < 0 || layer >= static_cast<int>(g.maps.size())) return {};
  const auto& heads = g.maps[static_cast<size_t>(layer)];
  if (heads.empty() || head >= static_cast<int>(heads.size())) return {};
  const int n = static_cast<int>(heads.front().rows());
  if (position < 1 || position >= n) return {};
  const int query = position - 1;
  if (head >= 0) return heads[static_cast<size_t>(head)].row(query).head(position).transpose();
  attn::Vec sum = attn::Vec::Zero(position);
  for (const attn::Mat& m : heads) sum += m.row(query).head(position).transpose();
  return sum / static_cast<float>(heads.size());
}

std::vector<RankedKey> topKeys(const attn::Vec& weights, int k) {
  std::vector<int> order(static_cast<size_t>(weights.size()));
  std::iota(order.begin(), order.end(), 0);
  const size_t take = std::min(order.size(), static_cast<size_t>(std::max(0, k)));
  std::partial_sort(
      order.begin(), order.begin() + static_cast<std::ptrdiff_t>(take), order.end(),
      [&weights](int a, int b) { return weights(a) > weights(b) || (weights(a) == weights(b) && a < b); });
  std::vector<RankedKey> out;
  for (size_t i = 0; i < take; ++i) out.push_back({order[i], weights(order[i])});
  return out;
}

attn::models::Encoding generatedEncoding(const attn::models::CausalGeneration& g,
                                         const attn::models::Encoding& prompt) {
  attn::models::Encoding e;
  e.ids = g.ids;
  e.tokens = g.tokens;
  e.tokens.resize(g.ids.size());
  e.typeIds.assign(g.ids.size(), 0);
  e.special.assign(g.ids.size(), 0);
  for (size_t i = 0; i < prompt.special.size() && i < e.special.size(); ++i) e.special[i] = prompt.special[i];
  return e;
}

}  // namespace attn::ui
