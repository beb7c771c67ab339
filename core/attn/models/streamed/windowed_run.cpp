#include "attn/models/streamed/windowed_run.h"

#include <fmt/format.h>

#include <algorithm>

#include "attn/analysis/streamed_analysis.h"
#include "attn/models/experiments/corpus_stats.h"

namespace attn::models {

Result<std::vector<TextWindow>> slidingWindows(int n, int window, int stride) {
  if (window < 2) return Error{fmt::format("the window must hold at least 2 tokens (got {})", window)};
  if (stride < 1 || stride > window)
    return Error{
        fmt::format("the stride must be between 1 and the window's {} tokens (got {})", window, stride)};
  std::vector<TextWindow> windows;
  if (n <= window) {
    windows.push_back({0, std::max(n, 0), 0});
    return windows;
  }
  int measured = 0;  // rows [0, measured) belong to earlier windows
  for (int start = 0;; start += stride) {
    const int s = std::min(start, n - window);  // the last window ends at the text's end
    windows.push_back({s, window, measured - s});
    measured = s + window;
    if (measured >= n) break;
  }
  return windows;
}

Encoding sliceEncoding(const Encoding& enc, int start, int length) {
  Encoding e;
  appendTokens(enc, static_cast<size_t>(start), static_cast<size_t>(start + length), e);
  return e;
}

Result<ModelRun> runWindowed(const Model& model, const Encoding& enc, int window, int stride,
                             RunOptions options, const ProgressFn& progress) {
  const ModelInfo& info = model.info();
  if (!info.causal)
    return Error{
        fmt::format("{} reads the text both ways (model_type {}): a sliding window's cuts would hide "
                    "keys on both sides of them; the window runs causal models",
                    info.name, info.modelType)};
  auto windows = slidingWindows(enc.size(), window, stride);
  if (!windows) return windows.error();
  std::vector<WindowedAnalysis> layers;
  layers.reserve(static_cast<size_t>(info.layers));
  const int keys = std::min(window, enc.size());
  for (int l = 0; l < info.layers; ++l)
    layers.emplace_back(info.heads, enc.size(), keys, options.streamedAnalysis);
  options.streamed = true;
  options.keepAttention = true;
  options.keepStreamedQk = false;
  options.keepQkv = options.keepOutputs = options.keepHiddenStates = options.keepFullLogits = false;
  options.nextTokenLoss = false;
  options.topK = 0;
  options.onlyLayer = -1;
  options.windowLayers = &layers;
  const int count = static_cast<int>(windows->size());
  for (int w = 0; w < count; ++w) {
    const TextWindow& tw = (*windows)[static_cast<size_t>(w)];
    options.windowStart = tw.start;
    options.windowFirstRow = tw.firstRow;
    const std::string stage = fmt::format("window {} of {}", w + 1, count);
    ProgressFn inner;
    if (progress)
      inner = [&](double f, std::string_view what) {
        return progress((w + f) / count, fmt::format("{}: {}", stage, what));
      };
    auto run = model.run(sliceEncoding(enc, tw.start, tw.length), options, inner);
    if (!run)
      return Error{fmt::format("{} (tokens {}..{}): {}", stage, tw.start, tw.start + tw.length - 1,
                               run.error().message)};
  }
  ModelRun run;
  run.encoding = enc;
  for (auto& l : layers) run.streamedLayers.push_back(l.finish());
  return run;
}

}  // namespace attn::models
