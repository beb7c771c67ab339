#include "attn/engine/precomputed.h"

#include <cassert>

#include "attn/metrics.h"

namespace attn {

PrecomputedAttention PrecomputedAttention::fromTensor(const Tensor& t) {
  assert(t.rank() >= 2 && t.rank() <= 4);
  const int64_t layers = t.rank() == 4 ? t.shape[0] : 1;
  const int64_t heads = t.rank() >= 3 ? t.shape[static_cast<size_t>(t.rank() - 3)] : 1;
  PrecomputedAttention p;
  p.layers.resize(static_cast<size_t>(layers));
  for (int64_t l = 0; l < layers; ++l)
    for (int64_t h = 0; h < heads; ++h) p.layers[static_cast<size_t>(l)].push_back(t.slice2d(l * heads + h));
  return p;
}

AttentionResult resultFromPrecomputed(const PrecomputedAttention& attn, int layer,
                                      std::vector<std::string> queryTokens,
                                      std::vector<std::string> keyTokens) {
  assert(layer >= 0 && layer < attn.numLayers());
  AttentionResult res;
  for (const Mat& w : attn.layers[static_cast<size_t>(layer)]) {
    HeadResult h;
    h.weights = w;
    h.output = Mat(w.rows(), 0);  // no values: Nq rows, no columns
    h.entropy = rowEntropy(w);
    for (int i = 0; i < w.rows(); ++i)
      if ((w.row(i).array() == 0.0f).all()) h.fullyMaskedRows.push_back(i);
    res.heads.push_back(std::move(h));
  }
  if (static_cast<size_t>(layer) < attn.inputs.size()) {
    const auto& in = attn.inputs[static_cast<size_t>(layer)];
    for (size_t h = 0; h < in.size() && h < res.heads.size(); ++h) {
      res.heads[h].q = in[h].q;
      res.heads[h].k = in[h].k;
      res.heads[h].v = in[h].v;
      res.heads[h].logitBias = in[h].logitBias;
    }
  }
  if (queryTokens.empty())
    for (int i = 0; i < attn.nq(); ++i) queryTokens.push_back(std::to_string(i));
  if (keyTokens.empty()) {
    if (attn.nk() == static_cast<int>(queryTokens.size())) keyTokens = queryTokens;
    else
      for (int j = 0; j < attn.nk(); ++j) keyTokens.push_back(std::to_string(j));
  }
  res.queryTokens = std::move(queryTokens);
  res.keyTokens = std::move(keyTokens);
  res.backendUsed = "precomputed";
  res.execUsed = "precomputed";
  return res;
}

}  // namespace attn
