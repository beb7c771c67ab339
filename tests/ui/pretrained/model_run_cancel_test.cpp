// Progress and Cancel of a model run in the window, offscreen: the run in flight shows
// its stage in the status bar, Esc stops it (the core forward returns at its first
// check between layers), and the run on screen stays as it was — same run, same
// result, no error — with "Cancelled" in the status bar; the next request runs again.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSemaphore>
#include <QStatusBar>
#include <QThreadPool>

#include "attn/models/model.h"
#include "attn_ui/common/background_job.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_panel.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/explorer/input_panel.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/pretrained/model_run_progress.h"
#include "attn_ui/pretrained/status_progress.h"
#include "attn_ui/window/file_open_controller.h"
#include "attn_ui/window/main_window.h"

namespace attn::ui {
namespace {

void settleRun(MainWindow& w) {
  w.modelOpener()->waitForIdle();
  w.fileOpener()->waitForIdle();
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
  w.heatmap()->waitForSource();
}

// Every worker of the global pool waits until release(): a job started meanwhile is
// queued, so it is still pending when the test cancels it.
class PoolHold {
 public:
  PoolHold() : threads_(QThreadPool::globalInstance()->maxThreadCount()) {
    for (int i = 0; i < threads_; ++i) QThreadPool::globalInstance()->start([this] { gate_.acquire(); });
  }
  ~PoolHold() { release(); }
  void release() {
    gate_.release(threads_);
    threads_ = 0;
  }

 private:
  int threads_;
  QSemaphore gate_;
};

QAction* escapeAction(MainWindow& w) {
  for (QAction* a : w.heatmapPanel()->viewActions())
    if (a->shortcut() == QKeySequence(Qt::Key_Escape)) return a;
  return nullptr;
}

TEST(ModelRunProgressStage, NamesTheLayerTheForwardIsIn) {
  EXPECT_EQ(modelRunStage(0.0, 4), QStringLiteral("Running the model: layer 1 of 4"));
  EXPECT_EQ(modelRunStage(2.0 / 5.0, 4), QStringLiteral("Running the model: layer 3 of 4"));
  EXPECT_EQ(modelRunStage(3.0 / 5.0, 4), QStringLiteral("Running the model: layer 4 of 4"));
  EXPECT_EQ(modelRunStage(1.0, 4), QStringLiteral("Running the model: next-token predictions"));
}

TEST(ModelRunCancel, EscStopsTheRunAndTheShownRunStays) {
  MainWindow w;
  auto* progress = w.findChild<ModelRunProgress*>();
  ASSERT_NE(progress, nullptr);
  progress->setShowDelayMs(0);
  settleRun(w);
  ASSERT_TRUE(w.openFile(QStringLiteral(ATTN_FIXTURE_DIR "/models/llama")));
  settleRun(w);
  ASSERT_TRUE(w.model()->hasModel()) << w.model()->lastError().toStdString();
  w.inputPanel()->queryEdit()->setPlainText(QStringLiteral("The cat sat on the mat."));
  settleRun(w);
  const auto before = w.model()->modelRun();
  const auto shownResult = w.model()->resultPtr();
  const quint64 shownGeneration = w.model()->shownGeneration();
  ASSERT_TRUE(before);
  EXPECT_FALSE(w.model()->cancelModelRun());  // nothing in flight: Esc unpins as before

  std::shared_ptr<JobControl> control;
  {
    PoolHold hold;
    w.inputPanel()->queryEdit()->setPlainText(QStringLiteral("A much longer text about the dog in the fog."));
    QElapsedTimer timer;
    timer.start();
    while (!(control = w.model()->modelRunControl()) && timer.elapsed() < 5000)
      QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    ASSERT_TRUE(control) << "the model run did not start";
    for (int i = 0; i < 5; ++i) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    ASSERT_TRUE(progress->status()->running());  // the stage, bar and Cancel are up
    EXPECT_FALSE(progress->status()->cancelButton()->isHidden());
    EXPECT_TRUE(progress->status()->stageLabel()->text().startsWith(QStringLiteral("Running the model")))
        << progress->status()->stageLabel()->text().toStdString();
    ASSERT_NE(escapeAction(w), nullptr);
    escapeAction(w)->trigger();  // Esc
    EXPECT_TRUE(control->cancelled());
  }
  settleRun(w);
  // The forward returned at its first check: it never reported a layer done.
  EXPECT_LT(control->progress().second, 0.2);
  EXPECT_EQ(w.model()->modelRun(), before);
  EXPECT_EQ(w.model()->resultPtr(), shownResult);
  EXPECT_EQ(w.model()->shownGeneration(), shownGeneration);
  EXPECT_TRUE(w.model()->lastError().isEmpty()) << w.model()->lastError().toStdString();
  EXPECT_TRUE(w.heatmapPanel()->errorBanner()->isHidden());
  EXPECT_EQ(w.statusBar()->currentMessage(), ModelRunProgress::cancelledMessage());
  EXPECT_FALSE(progress->status()->running());
  EXPECT_FALSE(w.model()->busy());

  // The next request runs the text that was cancelled.
  w.model()->recompute();
  settleRun(w);
  ASSERT_NE(w.model()->modelRun(), before);
  const auto again = w.model()->modelRun();
  EXPECT_GT(again->encoding.size(), before->encoding.size());
  EXPECT_FALSE(progress->status()->running());
}

TEST(ModelRunCancel, CancelBeforeTheRunStartsDropsTheRequest) {
  MainWindow w;
  settleRun(w);
  ASSERT_TRUE(w.openFile(QStringLiteral(ATTN_FIXTURE_DIR "/models/gpt2")));
  settleRun(w);
  ASSERT_TRUE(w.model()->hasModel()) << w.model()->lastError().toStdString();
  const auto before = w.model()->modelRun();
  ASSERT_TRUE(before);
  w.model()->setCoalesceMs(10000);  // the request waits in the queue
  w.inputPanel()->queryEdit()->setPlainText(QStringLiteral("Another text entirely."));
  QCoreApplication::processEvents();
  ASSERT_TRUE(w.model()->busy());
  EXPECT_TRUE(w.model()->cancelModelRun());
  EXPECT_FALSE(w.model()->busy());
  settleRun(w);
  EXPECT_EQ(w.model()->modelRun(), before);
  EXPECT_EQ(w.statusBar()->currentMessage(), ModelRunProgress::cancelledMessage());
}

}  // namespace
}  // namespace attn::ui
