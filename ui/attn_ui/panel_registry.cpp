// One line per contributed panel; see MainWindow::addPanel.
#include "attn_ui/main_window.h"
#include "attn_ui/metrics_panel.h"
#include "attn_ui/status_summary.h"

namespace attn::ui {

void installExtraPanels(MainWindow& window) {
  auto* metrics = new MetricsPanel(window.model());
  window.addPanel(QObject::tr("Metrics"), metrics, Qt::RightDockWidgetArea);
  QObject::connect(metrics, &MetricsPanel::analysisChanged, window.statusSummary(), [metrics, &window] {
    const auto* a = metrics->analysis();
    window.statusSummary()->setExtraWarnings(a ? collapseWarnings(*a) : QStringList{});
  });
}

}  // namespace attn::ui
