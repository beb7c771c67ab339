#include "attn_ui/variants/kv_cache_text.h"

#include <QCoreApplication>
#include <QLocale>

namespace attn::ui {
namespace {

QString tr(const char* s) { return QCoreApplication::translate("KvCacheText", s); }

QString bytesText(int64_t bytes) { return QLocale().formattedDataSize(bytes, 1, QLocale::DataSizeTraditionalFormat); }

}  // namespace

QString kvCacheSummary(const attn::variants::KvCacheView& view, int layer, int head, const QString& token,
                       const attn::models::ModelInfo& info) {
  const auto& share = view.cachedWeight.at(static_cast<size_t>(head));
  return tr("Layer %1, head %2, token %3 (“%4”): %5 cached keys and values; %6% of this query's weight is on the "
            "cache. The whole cache then holds %7 (K and V × %8 layers × %9 KV heads × %10 dims, 2 bytes each).")
      .arg(layer + 1)
      .arg(head + 1)
      .arg(view.step)
      .arg(token.toHtmlEscaped())
      .arg(view.step)
      .arg(QString::number(100.0 * share.back(), 'f', 1))
      .arg(bytesText(view.cacheBytes))
      .arg(info.layers)
      .arg(info.kvHeads)
      .arg(info.headDim);
}

std::vector<VariantStep> kvCacheSteps(const attn::variants::KvCacheView& view, int head, const QString& token,
                                      const attn::models::ModelInfo& info) {
  const int t = view.step;
  const auto& share = view.cachedWeight.at(static_cast<size_t>(head));
  std::vector<VariantStep> steps;
  steps.push_back({tr("What is cached"),
                   tr("Generating token %1 (“%2”), a decoder keeps the keys and values of tokens 0..%3 from the "
                      "earlier steps: the <b>cache</b>. Only q<sub>%1</sub>, k<sub>%1</sub> and v<sub>%1</sub> "
                      "are computed now, and k<sub>%1</sub>, v<sub>%1</sub> join the cache for the next token.")
                       .arg(t)
                       .arg(token.toHtmlEscaped())
                       .arg(t - 1)});
  steps.push_back({tr("Scores"),
                   tr("q<sub>%1</sub> is compared with the %1 cached keys and its own: s<sub>j</sub> = "
                      "q<sub>%1</sub>·k<sub>j</sub> / √%2 for j = 0..%1. The orange columns of the left map are "
                      "the cache.")
                       .arg(t)
                       .arg(info.headDim)});
  steps.push_back({tr("Weights"),
                   tr("A softmax over those %1 scores. The row equals row %2 of the full causal map: a causal "
                      "model's earlier rows never change when a token is added, which is why their keys and "
                      "values can be kept instead of recomputed. Here %3% of the weight lands on cached keys.")
                       .arg(t + 1)
                       .arg(t)
                       .arg(QString::number(100.0 * share.back(), 'f', 1))});
  steps.push_back({tr("Memory"),
                   tr("The cache grows by one key and one value per layer and KV head with every token: "
                      "2 × %1 layers × %2 KV heads × %3 dims × %4 tokens × 2 bytes = %5.")
                       .arg(info.layers)
                       .arg(info.kvHeads)
                       .arg(info.headDim)
                       .arg(t + 1)
                       .arg(bytesText(view.cacheBytes))});
  return steps;
}

}  // namespace attn::ui
