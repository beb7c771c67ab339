#include "attn/models/mlm_head.h"

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

}  // namespace attn::models
