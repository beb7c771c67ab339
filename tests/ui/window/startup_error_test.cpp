// `attnscope DIR` on a broken folder: the start-up example's result, computed
// from what was asked before the error, must not clear the error banner; the
// user's next change of input does. A FIFO in place of the weights is an error
// at once, not a load that blocks the window (and its Cancel and Quit).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QTemporaryDir>

#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_panel.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/window/main_window.h"
#include "watchdog.h"

namespace attn::ui {
namespace {

using namespace std::chrono_literals;

QString startupFixture(const char* name) {
  return QStringLiteral(ATTN_FIXTURE_DIR "/models/") + QString::fromLatin1(name);
}

QString copyOfGpt2(const QTemporaryDir& tmp, const char* as) {
  const QString dir = tmp.filePath(QString::fromLatin1(as));
  EXPECT_TRUE(QDir().mkpath(dir));
  for (const QString& f : QDir(startupFixture("gpt2")).entryList(QDir::Files))
    EXPECT_TRUE(QFile::copy(startupFixture("gpt2") + "/" + f, dir + "/" + f));
  return dir;
}

void settleStartup(MainWindow& w) {
  test::Watchdog dog(60s, "the window settling");
  w.modelOpener()->waitForIdle();
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
  w.model()->waitForIdle();
  QCoreApplication::processEvents();
}

TEST(StartupError, ABrokenFolderGivenAtStartKeepsItsBannerUntilTheUserActs) {
  QTemporaryDir tmp;
  ASSERT_TRUE(tmp.isValid());
  const QString bad = copyOfGpt2(tmp, "broken");
  {
    QFile weights(bad + "/model.safetensors");
    ASSERT_TRUE(weights.open(QIODevice::ReadWrite));
    ASSERT_TRUE(weights.resize(weights.size() / 2));
  }
  // As main() does: the window (computing its example) and at once the folder.
  MainWindow w;
  w.show();
  w.openFile(bad);
  settleStartup(w);
  ASSERT_TRUE(w.model()->hasResult());  // the example's result has arrived
  QLabel* banner = w.heatmapPanel()->errorBanner();
  EXPECT_FALSE(banner->isHidden());
  EXPECT_TRUE(banner->text().contains("model.safetensors")) << banner->text().toStdString();
  // Redrawing the same result (another head) keeps it; new input clears it.
  w.model()->setCurrentHead(1);
  QCoreApplication::processEvents();
  EXPECT_FALSE(banner->isHidden());
  w.model()->setText(QStringLiteral("a new sentence the user typed"));
  settleStartup(w);
  EXPECT_TRUE(banner->isHidden()) << banner->text().toStdString();
}

TEST(StartupError, AFifoInPlaceOfTheWeightsFailsAtOnce) {
  QTemporaryDir tmp;
  ASSERT_TRUE(tmp.isValid());
  const QString dir = copyOfGpt2(tmp, "fifo");
  ASSERT_TRUE(QFile::remove(dir + "/model.safetensors"));
  ASSERT_EQ(::mkfifo(QFile::encodeName(dir + "/model.safetensors").constData(), 0600), 0);
  MainWindow w;
  w.openFile(dir);
  settleStartup(w);  // the watchdog fails the test if the load blocks
  EXPECT_FALSE(w.model()->hasModel());
  // (lastError is the engine's: the example's result clears it; the banner keeps the load's.)
  QLabel* banner = w.heatmapPanel()->errorBanner();
  EXPECT_FALSE(banner->isHidden());
  EXPECT_TRUE(banner->text().contains("FIFO")) << banner->text().toStdString();
}

}  // namespace
}  // namespace attn::ui
