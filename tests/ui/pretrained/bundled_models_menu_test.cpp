// Opening a bundled model from the menu shows the head its registry entry names
// (the one its model card describes), on the entry's first example sentence;
// picking another example of the open model keeps the head the user is on.
#include "attn_ui/pretrained/bundled_models_menu.h"

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QPlainTextEdit>
#include <cstdlib>

#include "attn/models/bundled_models.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/input_panel.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {
namespace {

void waitForBundledRun(MainWindow& w) {
  w.modelOpener()->waitForIdle();
  for (int i = 0; i < 3; ++i) {  // the run, then the head shown once every view has it
    w.model()->waitForIdle();
    QCoreApplication::processEvents();
  }
}

TEST(BundledModelsMenu, OpensEachModelOnTheHeadItsEntryNames) {
  ::setenv("ATTNSCOPE_MODELS_DIR", ATTN_SOURCE_DIR "/resources/models", 1);
  MainWindow w;
  w.model()->setCoalesceMs(0);
  for (const char* name : {"induction-2l", "austen-gpt2"}) {
    const auto* entry = models::findBundledModel(name);
    ASSERT_NE(entry, nullptr);
    ASSERT_TRUE(w.bundledModels()->open(QString::fromUtf8(name)));
    waitForBundledRun(w);
    ASSERT_TRUE(w.model()->hasModel()) << name;
    ASSERT_NE(w.model()->modelRun(), nullptr) << name;
    EXPECT_EQ(w.model()->currentLayer(), entry->layer) << name;
    EXPECT_EQ(w.model()->currentHead(), entry->head) << name;
    EXPECT_EQ(w.inputPanel()->queryEdit()->toPlainText().toStdString(), entry->examples.front()) << name;
  }
  // Another example of the model already open: the text changes, the head stays.
  const auto* austen = models::findBundledModel("austen-gpt2");
  w.model()->setCurrentLayer(0);
  w.model()->setCurrentHead(2);
  ASSERT_TRUE(
      w.bundledModels()->open(QStringLiteral("austen-gpt2"), QString::fromStdString(austen->examples[1])));
  waitForBundledRun(w);
  EXPECT_EQ(w.inputPanel()->queryEdit()->toPlainText().toStdString(), austen->examples[1]);
  EXPECT_EQ(w.model()->currentLayer(), 0);
  EXPECT_EQ(w.model()->currentHead(), 2);
  ::unsetenv("ATTNSCOPE_MODELS_DIR");
}

}  // namespace
}  // namespace attn::ui
