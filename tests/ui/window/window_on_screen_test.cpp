// The main window opens inside the screen it opens on, frame included, with no window manager to
// move it: with the Translation dock of the random Marian open, and with a geometry saved on a
// bigger screen or off this one. The WindowOnScreen tests need a screen of at least 1366 × 768;
// WindowOnScreenSizes runs them again in a child process on an offscreen screen of each common size.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QDockWidget>
#include <QFile>
#include <QProcess>
#include <QScreen>
#include <QSettings>
#include <QTemporaryDir>

#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/pretrained/model_open_controller.h"
#include "attn_ui/translation/translation_panel.h"
#include "attn_ui/window/main_window.h"
#include "attn_ui/window/screen_fit.h"

namespace attn::ui {
namespace {

const char* const kExpectScreen = "ATTN_EXPECT_SCREEN";

std::string text(const QRect& r) {
  return QStringLiteral("%1x%2%3%4%5%6")
      .arg(r.width())
      .arg(r.height())
      .arg(r.x() < 0 ? "" : "+")
      .arg(r.x())
      .arg(r.y() < 0 ? "" : "+")
      .arg(r.y())
      .toStdString();
}

// The screen the window opens on, checked against the size the parent test asked for.
QRect screenArea(const MainWindow& window) {
  const QScreen* screen = screenOf(&window);
  if (!screen) return {};
  if (qEnvironmentVariableIsSet(kExpectScreen)) {
    const QSize s = screen->geometry().size();
    EXPECT_EQ(QStringLiteral("%1x%2").arg(s.width()).arg(s.height()), qEnvironmentVariable(kExpectScreen));
  }
  return screen->availableGeometry();
}

#define SKIP_ON_A_SMALL_SCREEN(area)                                                           \
  if ((area).width() < 1366 || (area).height() < 768)                                          \
  GTEST_SKIP() << "the layout is made for screens from 1366 x 768; this one is " << text(area) \
               << " (WindowOnScreenSizes runs this on each common size)"

TEST(WindowOnScreen, OpensInsideTheScreenWithTheTranslationDockOpen) {
  QSettings().remove(QStringLiteral("window"));  // a fresh start
  MainWindow window;
  const QRect area = screenArea(window);
  SKIP_ON_A_SMALL_SCREEN(area);
  window.show();
  window.model()->waitForIdle();
  QCoreApplication::processEvents();
  EXPECT_TRUE(area.contains(window.frameGeometry())) << text(window.frameGeometry()) << " on " << text(area);
  // The size it chose: building the docks did not grow it (on a larger screen it would still fit).
  EXPECT_EQ(window.size(), defaultWindowSize(area)) << "it is " << text(window.geometry());
  window.modelOpener()->open(QStringLiteral(ATTN_FIXTURE_DIR "/models/marian"));
  window.modelOpener()->waitForIdle();
  auto* panel = window.findChild<TranslationPanel*>();
  ASSERT_NE(panel, nullptr);
  panel->waitForIdle();
  QCoreApplication::processEvents();
  auto* dock = qobject_cast<QDockWidget*>(panel->parentWidget());
  ASSERT_NE(dock, nullptr);
  ASSERT_TRUE(dock->isVisible());
  EXPECT_TRUE(area.contains(window.frameGeometry())) << text(window.frameGeometry()) << " on " << text(area);
  const QRect dockOnScreen(dock->mapToGlobal(QPoint(0, 0)), dock->size());
  EXPECT_TRUE(area.contains(dockOnScreen)) << "the Translation dock at " << text(dockOnScreen);
}

TEST(WindowOnScreen, AGeometrySavedOnABiggerScreenOrOffThisOneComesBackOnIt) {
  QRect area;
  {
    MainWindow probe;
    area = screenArea(probe);
  }
  SKIP_ON_A_SMALL_SCREEN(area);
  const QRect saved[] = {
      QRect(area.topLeft(), area.size() * 3 / 2),                 // a bigger screen's
      QRect(area.right() + 400, area.bottom() + 300, 1300, 740),  // past the corner
      QRect(QPoint(area.left() - 900, area.top() + area.height() / 2),
            area.size() * 5 / 4),  // a screen to the left
  };
  for (const QRect& r : saved) {
    SCOPED_TRACE(text(r));
    QWidget before;
    before.setGeometry(r);
    QSettings().setValue(QStringLiteral("window/geometry"), before.saveGeometry());
    MainWindow window;
    window.show();
    window.model()->waitForIdle();
    QCoreApplication::processEvents();
    EXPECT_TRUE(area.contains(window.frameGeometry()))
        << text(window.frameGeometry()) << " on " << text(area);
  }
  QSettings().remove(QStringLiteral("window"));
}

// The offscreen platform reads its screens from a file given when the application starts, so
// each size is a run of the tests above in a child process.
TEST(WindowOnScreenSizes, TheWindowFitsScreensOf1366x768And1600x1000And1920x1080) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  for (const char* size : {"1366x768", "1600x1000", "1920x1080"}) {
    SCOPED_TRACE(size);
    const QStringList wh = QString::fromLatin1(size).split('x');
    const QString config = dir.filePath(QStringLiteral("screen-%1.json").arg(size));
    QFile file(config);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(QStringLiteral(R"({"screens": [{"name": "Screen", "x": 0, "y": 0, "width": %1, "height": %2,)"
                              R"( "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1.0}]})")
                   .arg(wh[0], wh[1])
                   .toUtf8());
    file.close();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen:configfile=") + config);
    env.insert(QString::fromLatin1(kExpectScreen), QString::fromLatin1(size));
    QProcess child;
    child.setProcessEnvironment(env);
    child.setProcessChannelMode(QProcess::MergedChannels);
    child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("--gtest_filter=WindowOnScreen.*")});
    ASSERT_TRUE(child.waitForFinished(180000));
    const QString out = QString::fromUtf8(child.readAll());
    EXPECT_EQ(child.exitCode(), 0) << out.toStdString();
    EXPECT_TRUE(out.contains(QLatin1String("[  PASSED  ] 2 tests."))) << out.toStdString();
    EXPECT_FALSE(out.contains(QLatin1String("[  SKIPPED ]"))) << out.toStdString();
  }
}

}  // namespace
}  // namespace attn::ui
