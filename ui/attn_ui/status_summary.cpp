#include "attn_ui/status_summary.h"

#include "attn/spec.h"
#include "attn_ui/explorer_model.h"

namespace attn::ui {

StatusSummary::StatusSummary(ExplorerModel* model, QWidget* parent) : QLabel(parent), model_(model) {
  setTextFormat(Qt::RichText);
  connect(model_, &ExplorerModel::resultChanged, this, &StatusSummary::refresh);
  connect(model_, &ExplorerModel::errorOccurred, this, &StatusSummary::refresh);
  connect(model_, &ExplorerModel::busyChanged, this, &StatusSummary::refresh);
}

void StatusSummary::refresh() {
  QStringList parts;
  if (model_->hasResult()) {
    const auto& r = model_->result();
    parts << (r.nq() == r.nk() ? tr("N = %1").arg(r.nq()) : tr("Nq = %1, Nk = %2").arg(r.nq()).arg(r.nk()))
          << tr("heads = %1").arg(r.numHeads())
          << QString::fromUtf8(attn::mechanismName(model_->spec().mechanism).data())
          << tr("%1 ms").arg(model_->lastComputeMs(), 0, 'f', 1);
    int masked = 0;
    for (const auto& h : r.heads) masked += static_cast<int>(h.fullyMaskedRows.size());
    for (const auto& w : r.warnings)
      parts << QStringLiteral("<span style='color:#c77c00'>⚠ %1</span>").arg(QString::fromStdString(w).toHtmlEscaped());
    (void)masked;
  }
  if (model_->busy()) parts << tr("computing…");
  if (!model_->lastError().isEmpty())
    parts << QStringLiteral("<span style='color:#d03030'>%1</span>")
                 .arg(tr("Error: %1 (previous view kept)").arg(model_->lastError()).toHtmlEscaped());
  setText(parts.join(QStringLiteral("   ·   ")));
}

}  // namespace attn::ui
