#include "attn/models/quantization/quantization_effect.h"

#include <fmt/format.h>

namespace attn::models {

Status checkQuantizationEffect(const ModelInfo& info) {
  if (!info.quantizedProductTypes.empty()) return okStatus();
  const std::string file = info.source.empty() ? info.name : info.source;
  const std::string weights = info.quantization.empty() ? info.dtype + " weights" : info.quantization;
  return Error{fmt::format(
      "{}: no product of this model runs on quantized activations ({}; AttnScope quantizes them for "
      "GGUF Q8_0, Q4_K and Q6_K matrices): the quantized and full-precision runs would be the same",
      file, weights)};
}

Result<QuantizationEffect> quantizationEffect(const Model& model, const Encoding& encoding,
                                              const RunOptions& options, const ProgressFn& progress) {
  if (auto st = checkQuantizationEffect(model.info()); !st) return st.error();
  if (options.streamed)
    return Error{fmt::format("{}: the quantization effect compares maps, and a streamed run keeps none",
                             model.info().source)};
  RunOptions both = options;
  both.keepAttention = true;
  if (model.info().causal) both.keepFullLogits = true;  // compareRuns' next-token KL
  // Two forwards of about the same cost: each is half of the progress.
  const auto half = [&progress](double offset) -> ProgressFn {
    if (!progress) return {};
    return [&progress, offset](double f, std::string_view s) { return progress(offset + 0.5 * f, s); };
  };
  QuantizationEffect e;
  e.types = model.info().quantizedProductTypes;
  both.quantizedDot = true;
  auto quantized = model.run(encoding, both, half(0.0));
  if (!quantized) return quantized.error();
  both.quantizedDot = false;
  auto full = model.run(encoding, both, half(0.5));
  if (!full) return full.error();
  auto cmp = compareRuns(model, *full, *quantized);
  if (!cmp) return cmp.error();
  e.quantized = std::move(quantized).value();
  e.fullPrecision = std::move(full).value();
  e.comparison = std::move(cmp).value();
  for (size_t l = 0; l < e.comparison.weights.size(); ++l)
    for (size_t h = 0; h < e.comparison.weights[l].size(); ++h)
      if (e.comparison.weights[l][h].maxAbs > e.largestChange) {
        e.largestChange = e.comparison.weights[l][h].maxAbs;
        e.largestLayer = static_cast<int>(l) + e.quantized.firstLayer;
        e.largestHead = static_cast<int>(h);
      }
  if (!options.keepFullLogits)  // kept for the KL only: [N, vocab] each
    e.quantized.logits = e.fullPrecision.logits = Mat();
  return e;
}

Mat quantizationDelta(const QuantizationEffect& effect, size_t index, size_t head) {
  const auto& q = effect.quantized.layers;
  const auto& f = effect.fullPrecision.layers;
  if (index >= q.size() || index >= f.size() || head >= q[index].heads.size() ||
      head >= f[index].heads.size())
    return Mat();
  const Mat& a = q[index].heads[head].weights;
  const Mat& b = f[index].heads[head].weights;
  if (a.rows() != b.rows() || a.cols() != b.cols()) return Mat();
  return a - b;
}

}  // namespace attn::models
