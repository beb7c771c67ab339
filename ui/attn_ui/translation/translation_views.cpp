#include "attn_ui/translation/translation_views.h"

namespace attn::ui {

std::shared_ptr<const attn::LoadedInput> attentionKindAsInput(
    const std::vector<attn::AttentionResult>& layers, bool causal, const QString& name, bool scaledScores) {
  if (layers.empty() || layers.front().heads.empty()) return nullptr;
  auto file = std::make_shared<attn::LoadedInput>();
  file->path = QString(name).replace(QLatin1Char('/'), QLatin1Char('-')).toStdString();
  file->format = "translation";
  for (const auto& layer : layers) {
    std::vector<attn::Mat> heads;
    heads.reserve(layer.heads.size());
    for (const auto& h : layer.heads) heads.push_back(h.weights);
    file->attention.layers.push_back(std::move(heads));
  }
  const bool kept = layers.front().heads.front().q.size() > 0;
  if (kept) {  // the step-through's inputs, per layer and head
    for (const auto& layer : layers) {
      std::vector<attn::PrecomputedHeadInputs> heads;
      heads.reserve(layer.heads.size());
      for (const auto& h : layer.heads) heads.push_back({h.q, h.k, h.v, h.logitBias});
      file->attention.inputs.push_back(std::move(heads));
    }
    file->attention.scaledScores = scaledScores;
  }
  const auto& first = layers.front();
  file->input.queryTokens = first.queryTokens;
  if (first.keyTokens != first.queryTokens) file->input.keyTokens = first.keyTokens;
  if (causal) {
    const int n = file->attention.nq();
    file->maskRows = file->maskCols = n;
    file->maskKeep.assign(static_cast<size_t>(n) * static_cast<size_t>(n), 0);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) file->maskKeep[static_cast<size_t>(i) * static_cast<size_t>(n) + j] = 1;
  }
  return file;
}

}  // namespace attn::ui
