#include "attn_ui/window/status_summary.h"

#include <cmath>

#include "attn/analysis/head_analysis.h"
#include "attn/spec.h"
#include "attn/models/model.h"
#include "attn_ui/explorer/explorer_model.h"

namespace attn::ui {

StatusSummary::StatusSummary(ExplorerModel* model, QWidget* parent) : QLabel(parent), model_(model) {
  setTextFormat(Qt::RichText);
  connect(model_, &ExplorerModel::resultChanged, this, &StatusSummary::refresh);
  connect(model_, &ExplorerModel::errorOccurred, this, &StatusSummary::refresh);
  connect(model_, &ExplorerModel::busyChanged, this, &StatusSummary::refresh);
}

QString StatusSummary::streamedNote(int tokens) {
  return tr("%1 tokens: maps recomputed from the kept q/k (streamed)").arg(tokens);
}

void StatusSummary::refresh() {
  QStringList parts;
  if (model_->hasResult()) {
    const auto& r = model_->result();
    parts << (r.nq() == r.nk() ? tr("N = %1").arg(r.nq()) : tr("Nq = %1, Nk = %2").arg(r.nq()).arg(r.nk()))
          << tr("heads = %1").arg(r.numHeads())
          << (model_->hasModel() && model_->showsLayers()
                  ? tr("layer %1 of %2 of %3").arg(model_->currentLayer() + 1).arg(model_->numLayers())
                        .arg(QString::fromStdString(model_->modelPtr()->info().name))
              : model_->showsPrecomputed()
                  ? tr("layer %1 of %2 from the file").arg(model_->currentLayer() + 1).arg(model_->numLayers())
                  : QString::fromUtf8(attn::mechanismName(model_->resultSpec().mechanism).data()))
          << (r.execUsed.empty() || model_->showsLayers() ? QString()
              : model_->resultSpec().exec == attn::ExecPath::Auto
                  ? tr("path %1 (picked by auto)").arg(QString::fromStdString(r.execUsed))
                  : tr("path %1").arg(QString::fromStdString(r.execUsed)))
          << tr("%1 ms").arg(model_->lastComputeMs(), 0, 'f', 1);
    if (model_->isStreamed()) parts << streamedNote(r.nq());
    if (model_->hasModel() && model_->showsLayers() && r.backendUsed == "cuda")
      parts << tr("forward on the GPU");
    parts.removeAll(QString());
    if (const auto* h = model_->currentHeadResult(); h && h->approxError)
      parts << (std::isnan(h->approxError->weightsFrobenius)
                    ? tr("approx. error: output %1%").arg(100.0 * h->approxError->outputRelError, 0, 'f', 2)
                    : tr("approx. error: output %1%, weights Frobenius %2, row KL %3")
                          .arg(100.0 * h->approxError->outputRelError, 0, 'f', 2)
                          .arg(h->approxError->weightsFrobenius, 0, 'g', 3)
                          .arg(h->approxError->meanRowKl, 0, 'g', 3));
    for (const auto& w : r.warnings)
      parts << QStringLiteral("<span style='color:#c77c00'>⚠ %1</span>").arg(QString::fromStdString(w).toHtmlEscaped());
    if (model_->hasModel() && !model_->modelBackendNote().isEmpty())  // asked for the GPU, ran on the CPU
      parts << QStringLiteral("<span style='color:#c77c00'>⚠ %1</span>")
                   .arg(model_->modelBackendNote().toHtmlEscaped());
    for (const QString& w : extraWarnings_)
      parts << QStringLiteral("<span style='color:#c77c00'>⚠ %1</span>").arg(w.toHtmlEscaped());
  }
  if (model_->busy()) parts << tr("computing…");
  if (!model_->lastError().isEmpty())
    parts << QStringLiteral("<span style='color:#d03030'>%1</span>")
                 .arg(tr("Error: %1 (previous view kept)").arg(model_->lastError()).toHtmlEscaped());
  setText(parts.join(QStringLiteral("   ·   ")));
}

}  // namespace attn::ui

namespace attn::ui {

void StatusSummary::setExtraWarnings(const QStringList& warnings) {
  extraWarnings_ = warnings;
  refresh();
}

}  // namespace attn::ui

namespace attn::ui {

QStringList collapseWarnings(const attn::Analysis& analysis) {
  QStringList uniform, oneHot;
  for (size_t h = 0; h < analysis.heads.size(); ++h) {
    if (analysis.heads[h].collapse.nearUniform) uniform << QString::number(h + 1);
    if (analysis.heads[h].collapse.nearOneHot) oneHot << QString::number(h + 1);
  }
  QStringList out;
  if (!oneHot.isEmpty()) out << QObject::tr("collapse: head %1 near one-hot").arg(oneHot.join(", "));
  if (!uniform.isEmpty()) out << QObject::tr("collapse: head %1 near uniform").arg(uniform.join(", "));
  return out;
}

}  // namespace attn::ui
