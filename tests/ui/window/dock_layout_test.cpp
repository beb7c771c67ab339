// The window adapts to what is open: a pretrained model hides the
// Configuration dock (every control of it is fixed by the model; the Input
// dock's model card says what the model is), closing the model or opening a
// file in its place brings it back, View > Hide Configuration While a Model Is
// Open turns that off, and a dock shown by hand stays.
#include "attn_ui/window/dock_layout.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QCoreApplication>
#include <QDockWidget>
#include <QPushButton>
#include <QSettings>

#include "attn_ui/explorer/config_panel.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/input_panel.h"
#include "attn_ui/pretrained/model_info_box.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/window/file_open_controller.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {
namespace {

QString gpt2Folder() { return QStringLiteral(ATTN_FIXTURE_DIR "/models/gpt2"); }

void settle(MainWindow& w) {
  w.modelOpener()->waitForIdle();
  w.fileOpener()->waitForIdle();
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
}

QDockWidget* configDock(MainWindow& w) {
  for (QDockWidget* d : w.findChildren<QDockWidget*>())
    if (d->isAncestorOf(w.configPanel())) return d;
  return nullptr;
}

void openGpt2(MainWindow& w) {
  ASSERT_TRUE(w.openFile(gpt2Folder()));
  settle(w);
  ASSERT_TRUE(w.model()->hasModel()) << w.model()->lastError().toStdString();
}

TEST(DockLayout, AModelHidesTheConfigurationAndClosingItBringsItBack) {
  MainWindow w;
  settle(w);
  QDockWidget* dock = configDock(w);
  ASSERT_NE(dock, nullptr);
  EXPECT_FALSE(dock->isHidden());
  EXPECT_FALSE(w.inputPanel()->modelBox()->isVisibleTo(&w));

  openGpt2(w);
  EXPECT_TRUE(dock->isHidden());
  EXPECT_TRUE(w.dockLayout()->steppedAside());
  EXPECT_TRUE(w.inputPanel()->modelBox()->isVisibleTo(&w));  // the model card stands in for it
  EXPECT_FALSE(dock->toggleViewAction()->isChecked());

  w.inputPanel()->modelBox()->closeButton()->click();
  settle(w);
  EXPECT_FALSE(w.model()->hasModel());
  EXPECT_FALSE(dock->isHidden());
  EXPECT_FALSE(w.dockLayout()->steppedAside());
}

TEST(DockLayout, OpeningAnExampleFileInPlaceOfTheModelBringsItBack) {
  MainWindow w;
  settle(w);
  openGpt2(w);
  ASSERT_TRUE(configDock(w)->isHidden());
  ASSERT_TRUE(w.openFile(QStringLiteral(ATTN_FIXTURE_DIR "/io/contract_qkv.npz")));
  settle(w);
  EXPECT_FALSE(w.model()->hasModel());
  EXPECT_FALSE(configDock(w)->isHidden());
}

TEST(DockLayout, TheViewToggleKeepsTheConfigurationShownWithAModel) {
  MainWindow w;
  settle(w);
  QAction* hide = w.dockLayout()->hideWithModelAction();
  ASSERT_TRUE(hide->isChecked());
  hide->setChecked(false);
  openGpt2(w);
  EXPECT_FALSE(configDock(w)->isHidden());
  hide->setChecked(true);  // turned on with a model open: it steps aside now
  EXPECT_TRUE(configDock(w)->isHidden());
  hide->setChecked(false);  // and off again: back
  EXPECT_FALSE(configDock(w)->isHidden());
  hide->setChecked(true);
  QSettings().remove(QStringLiteral("view/hideConfigurationWithModel"));
}

TEST(DockLayout, ShownByHandWhileAModelIsOpenItStays) {
  MainWindow w;
  settle(w);
  openGpt2(w);
  QDockWidget* dock = configDock(w);
  ASSERT_TRUE(dock->isHidden());
  dock->toggleViewAction()->trigger();  // View > Panels > Configuration
  EXPECT_FALSE(dock->isHidden());
  EXPECT_FALSE(w.dockLayout()->steppedAside());
  w.inputPanel()->modelBox()->closeButton()->click();
  settle(w);
  EXPECT_FALSE(dock->isHidden());
  openGpt2(w);  // another model: it steps aside again
  EXPECT_TRUE(dock->isHidden());
}

}  // namespace
}  // namespace attn::ui
