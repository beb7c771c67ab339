// Work for a panel nobody can see waits until it is shown; without
// a window on screen (tests, start-up) it runs at once, as before.
#include "attn_ui/window/hidden_panel_gate.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QDockWidget>
#include <QMainWindow>

#include "attn_ui/classroom/compare_panel.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/row_column_panel.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {
namespace {

TEST(HiddenPanelGate, RunsAtOnceWithoutAWindowOnScreen) {
  QWidget panel;
  int runs = 0;
  auto* gate = new HiddenPanelGate(&panel, [&runs] { ++runs; });
  gate->request();
  EXPECT_EQ(runs, 1);
  EXPECT_FALSE(gate->pending());
}

TEST(HiddenPanelGate, AClosedDockRunsOnceWhenShown) {
  QMainWindow window;
  auto* panel = new QWidget;
  auto* dock = new QDockWidget(QStringLiteral("panel"), &window);
  dock->setWidget(panel);
  window.addDockWidget(Qt::RightDockWidgetArea, dock);
  dock->hide();
  window.show();
  QCoreApplication::processEvents();
  int runs = 0;
  auto* gate = new HiddenPanelGate(panel, [&runs] { ++runs; });
  gate->request();
  gate->request();  // requests while closed collapse into one run
  EXPECT_EQ(runs, 0);
  EXPECT_TRUE(gate->pending());
  dock->show();
  QCoreApplication::processEvents();
  EXPECT_EQ(runs, 1);
  EXPECT_FALSE(gate->pending());
  gate->request();  // on screen: at once
  EXPECT_EQ(runs, 2);
  dock->hide();
  dock->show();  // nothing pending: showing again runs nothing
  QCoreApplication::processEvents();
  EXPECT_EQ(runs, 2);
}

// The closed Compare dock ran B's engine job for every change of the explorer.
TEST(HiddenPanelGate, TheClosedCompareDockComputesNothingUntilOpened) {
  MainWindow w;
  w.show();
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
  ASSERT_TRUE(w.model()->hasResult());
  auto* compare = w.findChild<ComparePanel*>();
  ASSERT_NE(compare, nullptr);
  auto* dock = qobject_cast<QDockWidget*>(compare->parentWidget());
  ASSERT_NE(dock, nullptr);
  ASSERT_FALSE(dock->isVisible());
  w.model()->setTemperature(0.5f);
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
  compare->modelB()->waitForIdle();
  EXPECT_FALSE(compare->modelB()->hasResult());

  dock->show();
  QCoreApplication::processEvents();
  compare->modelB()->waitForIdle();
  QCoreApplication::processEvents();
  ASSERT_TRUE(compare->modelB()->hasResult());
  EXPECT_EQ(compare->modelB()->result().nq(), w.model()->result().nq());
  EXPECT_FLOAT_EQ(compare->modelB()->spec().temperature, 1.0f);  // B's own temperature (its spin box)
  EXPECT_EQ(compare->modelB()->spec().heads, w.model()->spec().heads);  // the rest is A's
}

// The Row and column dock behind another tab picks up a pinned row only once it is shown.
TEST(HiddenPanelGate, TheRowAndColumnDockWaitsUntilShown) {
  MainWindow w;
  w.show();
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
  ASSERT_TRUE(w.model()->hasResult());
  auto* panel = w.findChild<RowColumnPanel*>();
  ASSERT_NE(panel, nullptr);
  QDockWidget* dock = nullptr;  // the panel may sit in a scroll area inside its dock
  for (QWidget* p = panel->parentWidget(); p && !dock; p = p->parentWidget())
    dock = qobject_cast<QDockWidget*>(p);
  ASSERT_NE(dock, nullptr);
  dock->hide();
  QCoreApplication::processEvents();
  w.model()->setPinnedRow(1);
  QCoreApplication::processEvents();
  EXPECT_TRUE(panel->rowWeights().empty());
  dock->show();
  QCoreApplication::processEvents();
  panel->waitForIdle();
  QCoreApplication::processEvents();
  EXPECT_EQ(static_cast<int>(panel->rowWeights().size()), w.model()->result().nk());
}

}  // namespace
}  // namespace attn::ui
