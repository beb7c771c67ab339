// One line per contributed panel; see MainWindow::addPanel.
#include "attn_ui/classroom_actions.h"
#include "attn_ui/main_window.h"
#include "attn_ui/metrics_panel.h"

namespace attn::ui {

void installExtraPanels(MainWindow& window) {
  window.addPanel(QObject::tr("Metrics"), new MetricsPanel(window.model()), Qt::RightDockWidgetArea);
  new ClassroomActions(window);  // step-through, token lines, compare, toy input; export; presentation
}

}  // namespace attn::ui
