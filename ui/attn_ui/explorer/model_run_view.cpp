#include "attn_ui/explorer/model_run_view.h"

namespace attn::ui {

// Vocabulary strings ("Ġanimal", "▁the", "<0x0A>") are the tokenizer's; a reader
// sees the text each id stands for, with the word boundary kept visible.
QStringList modelTokenLabels(const attn::models::HfTokenizer& tokenizer,
                             const attn::models::Encoding& encoding) {
  QStringList out;
  out.reserve(encoding.size());
  for (int i = 0; i < encoding.size(); ++i) {
    QString t = QString::fromStdString(tokenizer.displayText(encoding.ids[static_cast<size_t>(i)]));
    if (t.isEmpty()) t = QString::fromStdString(encoding.tokens[static_cast<size_t>(i)]);
    t.replace(QLatin1Char('\n'), QStringLiteral("↵")).replace(QLatin1Char('\t'), QStringLiteral("⇥"));
    if (t.startsWith(QLatin1Char(' ')) && t.size() > 1) t = QStringLiteral("␣") + t.mid(1);
    out << (t.trimmed().isEmpty() ? QStringLiteral("␣") : t);
  }
  return out;
}

// A run's weights as [L][H], for the head grid and the layered views.
std::shared_ptr<attn::PrecomputedAttention> layeredWeights(const attn::models::ModelRun& run) {
  auto layers = std::make_shared<attn::PrecomputedAttention>();
  layers->layers.reserve(run.layers.size());
  for (const auto& layer : run.layers) {
    std::vector<attn::Mat> heads;
    heads.reserve(layer.heads.size());
    for (const auto& h : layer.heads) heads.push_back(h.weights);
    layers->layers.push_back(std::move(heads));
  }
  return layers;
}

// A streamed run's layers as results without weights: each head's per-row entropy from
// the forward's measures, the tokens and the mask, so the panels that read a result
// (head selector, status, metrics-only notices) follow it; null when the run kept no q/k.
std::shared_ptr<const std::vector<attn::AttentionResult>> streamedLayerResults(
    const attn::models::ModelRun& run) {
  if (!run.qk || run.streamedLayers.empty()) return nullptr;
  auto out = std::make_shared<std::vector<attn::AttentionResult>>();
  out->reserve(run.streamedLayers.size());
  for (const auto& analysis : run.streamedLayers) {
    attn::AttentionResult r;
    r.queryTokens = run.encoding.tokens;
    r.keyTokens = run.encoding.tokens;
    r.mask = run.qk->mask();
    r.execUsed = "streamed";
    r.heads.resize(analysis.heads.size());
    const Eigen::Index n = run.encoding.size();
    for (size_t h = 0; h < analysis.heads.size(); ++h) {
      r.heads[h].output.resize(n, 0);   // nq() = N with no values
      r.heads[h].weights.resize(0, n);  // nk() = N, and still no weights (metrics-only)
      r.heads[h].entropy = analysis.heads[h].perRow.entropy;
      r.heads[h].fullyMaskedRows = analysis.heads[h].emptyRows;
    }
    out->push_back(std::move(r));
  }
  return out;
}

}  // namespace attn::ui
