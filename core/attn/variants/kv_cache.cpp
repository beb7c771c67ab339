#include "attn/variants/kv_cache.h"

#include <fmt/format.h>

namespace attn::variants {

namespace {
// Weights above this count as attention to a later key (a masked cell is exactly 0).
constexpr double kFutureWeight = 1e-12;
}  // namespace

Result<KvCacheView> kvCacheView(const AttentionResult& layer, int head, int step, const KvCacheShape& shape,
                                std::vector<std::string> labels) {
  if (head < 0 || head >= layer.numHeads())
    return Error{fmt::format("KV cache: head {} is out of range (1..{})", head + 1, layer.numHeads())};
  const Mat& w = layer.heads[static_cast<size_t>(head)].weights;
  const int n = static_cast<int>(w.rows());
  if (n == 0 || w.cols() != w.rows()) return Error{"KV cache: the layer has no square self-attention map"};
  if (step < 0 || step >= n) return Error{fmt::format("KV cache: token {} is out of range (0..{})", step, n - 1)};
  for (const auto& h : layer.heads)
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (h.weights(i, j) > kFutureWeight)
          return Error{"KV cache: this model attends to later tokens (an encoder such as BERT); only a causal "
                       "(decoder) model builds a key/value cache token by token"};

  if (labels.empty()) labels = layer.keyTokens;
  labels.resize(static_cast<size_t>(n));
  KvCacheView v;
  v.step = step;
  VariantMap current;
  current.title = fmt::format("token {}: {} cached keys + its own", step, step);
  current.values = w.block(step, 0, 1, step + 1);
  current.rowLabels = {labels[static_cast<size_t>(step)]};
  current.colLabels.assign(labels.begin(), labels.begin() + step + 1);
  current.memoryColumns = step;
  VariantMap sofar;
  sofar.title = fmt::format("generated so far: tokens 0..{}", step);
  sofar.values = Mat::Zero(n, n);
  sofar.values.topRows(step + 1) = w.topRows(step + 1);
  sofar.rowLabels = labels;
  sofar.colLabels = labels;
  v.maps = {std::move(current), std::move(sofar)};
  for (const auto& h : layer.heads) {
    std::vector<double> share;
    for (int i = 0; i <= step; ++i) share.push_back(static_cast<double>(h.weights.row(i).head(i).sum()));
    v.cachedWeight.push_back(std::move(share));
  }
  v.cacheBytes = int64_t{2} * shape.layers * shape.kvHeads * shape.headDim * (step + 1) * shape.bytesPerValue;
  return v;
}

}  // namespace attn::variants
