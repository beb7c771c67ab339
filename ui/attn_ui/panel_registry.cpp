// One line per contributed panel; see MainWindow::addPanel.
#include "attn_ui/main_window.h"

namespace attn::ui {

void installExtraPanels(MainWindow& window) {
  (void)window;
  // window.addPanel(QObject::tr("Metrics"), new MetricsPanel(window.model()), Qt::RightDockWidgetArea);
}

}  // namespace attn::ui
