#include "attn_ui/metrics/metrics_text.h"

#include <QCoreApplication>

#include "attn_ui/common/core_text.h"

namespace attn::ui {
namespace {

QString tr(const char* s) { return QCoreApplication::translate("attn::ui::MetricsPanel", s); }

}  // namespace

QString measureAxisLabel(const attn::HeadMeasure& m, attn::EntropyUnit unit) {
  const std::string_view u = m.unit == "nats" ? attn::unitName(unit) : m.unit;
  return u.empty() ? coreText(m.label) : QStringLiteral("%1 (%2)").arg(coreText(m.label), coreText(u));
}

QString headSummaryText(const attn::Analysis& an, int head) {
  if (head < 0 || head >= static_cast<int>(an.heads.size())) return {};
  const auto& h = an.heads[static_cast<size_t>(head)];
  QString s = tr("Head %1").arg(head + 1);
  for (const auto& m : attn::headMeasures())
    s += QStringLiteral("\n%1: %2").arg(measureAxisLabel(m, an.options.unit)).arg(m.value(h), 0, 'g', 4);
  s += tr("\nuniform bound log N: %1").arg(an.uniformBound, 0, 'g', 4);
  if (h.collapse.nearUniform) s += tr("\nFLAG: near-uniform");
  if (h.collapse.nearOneHot) s += tr("\nFLAG: near-one-hot");
  if (!h.emptyRows.empty()) s += tr("\n%1 fully masked row(s) left out").arg(h.emptyRows.size());
  return s;
}

QString collapseFlagsText(const attn::Analysis& an, const QString& label) {
  QStringList lines;
  const auto& c = an.options.collapse;
  for (size_t h = 0; h < an.heads.size(); ++h) {
    const auto& f = an.heads[h].collapse;
    if (f.nearUniform)
      lines << tr("⚠ %1Head %2 is near-uniform: %3% of its rows have normalized entropy above %4.")
                   .arg(label)
                   .arg(h + 1)
                   .arg(f.uniformRowShare * 100, 0, 'f', 0)
                   .arg(c.uniformEntropy);
    if (f.nearOneHot)
      lines << tr("⚠ %1Head %2 is near-one-hot: on %3% of its rows one key takes more than %4 of the mass.")
                   .arg(label)
                   .arg(h + 1)
                   .arg(f.oneHotRowShare * 100, 0, 'f', 0)
                   .arg(c.oneHotMass);
  }
  for (const auto& w : an.warnings) lines << QStringLiteral("⚠ ") + QString::fromStdString(w);
  return lines.join(QLatin1Char('\n'));
}

QString thresholdsText(const attn::AnalysisOptions& o) {
  return tr("Flags: near-uniform when normalized entropy > %1, near-one-hot when one key > %2 of the mass, "
            "on more than %3% of rows with 2+ unmasked keys. Sparsity k covers %4% of each row's mass.")
      .arg(o.collapse.uniformEntropy)
      .arg(o.collapse.oneHotMass)
      .arg(o.collapse.rowShare * 100, 0, 'f', 0)
      .arg(o.coverageLevel * 100, 0, 'g', 3);
}

}  // namespace attn::ui
