// GUI autosave: periodic atomic writes while the session changes, removal on a
// clean exit, and restore after a crash, tested by SIGKILLing the real GUI and
// starting it again.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <functional>

#include "attn/io/session.h"
#include "attn_ui/window/autosave.h"

namespace attn::ui {
namespace {

attn::Session withText(const std::string& text) {
  attn::Session s;
  s.input.text = text;
  return s;
}

bool waitFor(const std::function<bool()>& cond, int ms) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < ms) {
    if (cond()) return true;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
  }
  return cond();
}

TEST(Autosave, WritesOnlyWhenChangedAndCleanExitRemovesIt) {
  QTemporaryDir dir;
  const QString file = dir.filePath("autosave.json");
  std::string text = "first words";
  Autosave as([&] { return withText(text); }, file, 60000);
  ASSERT_TRUE(as.saveNow().ok());
  auto r = Autosave::recoverable(file);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->input.text, "first words");
  ASSERT_TRUE(as.saveNow().ok());
  EXPECT_EQ(as.writes(), 1);  // unchanged: no rewrite
  text = "second words";
  ASSERT_TRUE(as.saveNow().ok());
  EXPECT_EQ(as.writes(), 2);
  EXPECT_EQ(Autosave::recoverable(file)->input.text, "second words");
  as.finish();
  EXPECT_FALSE(QFile::exists(file));
  EXPECT_FALSE(Autosave::recoverable(file).ok());
}

TEST(Autosave, TimerSavesPeriodically) {
  QTemporaryDir dir;
  const QString file = dir.filePath("sub/autosave.json");
  Autosave as([] { return withText("ticking"); }, file, 50);
  as.start();
  EXPECT_TRUE(waitFor([&] { return QFile::exists(file); }, 5000));
  as.finish();
}

TEST(Autosave, FailedWriteIsReportedAndKeepsThePreviousAutosave) {
  QTemporaryDir dir;
  // A parent that is a regular file cannot hold the autosave (tests run as
  // root, where a read-only folder would not stop the write).
  QFile blocker(dir.filePath("blocker"));
  ASSERT_TRUE(blocker.open(QIODevice::WriteOnly));
  blocker.close();
  Autosave bad([] { return withText("x"); }, dir.filePath("blocker/autosave.json"), 60000);
  EXPECT_FALSE(bad.saveNow().ok());

  const QString file = dir.filePath("autosave.json");
  std::string text = "kept";
  Autosave as([&] { return withText(text); }, file, 60000);
  ASSERT_TRUE(as.saveNow().ok());
  EXPECT_FALSE(Autosave::recoverable(dir.filePath("missing.json")).ok());
  QFile::resize(file, 10);  // a damaged autosave is refused, never half-applied
  EXPECT_FALSE(Autosave::recoverable(file).ok());
}

TEST(Autosave, GuiOffersRestoreAfterBeingKilled) {
  QTemporaryDir dir;
  const std::string sessionPath = QDir(dir.path()).filePath("start.json").toStdString();
  ASSERT_TRUE(attn::saveSession(sessionPath, withText("autosave survives a crash")).ok());
  const QString autosave = dir.filePath("as/autosave.json");

  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("QT_QPA_PLATFORM", "offscreen");
  env.insert("ATTNSCOPE_AUTOSAVE_DIR", dir.filePath("as"));
  env.insert("ATTNSCOPE_AUTOSAVE_MS", "100");
  env.insert("XDG_CONFIG_HOME", dir.filePath("config"));  // keep the user's settings out of it

  // 1. Open a session, let it autosave, then crash hard.
  QProcess first;
  first.setProcessEnvironment(env);
  first.start(ATTN_GUI, {QString::fromStdString(sessionPath)});
  ASSERT_TRUE(first.waitForStarted(10000));
  const bool saved = waitFor(
      [&] {
        auto s = Autosave::recoverable(autosave);
        return s.ok() && s->input.text == "autosave survives a crash";
      },
      20000);
  first.kill();  // SIGKILL: no clean exit, the autosave stays
  first.waitForFinished(5000);
  ASSERT_TRUE(saved) << "the GUI never autosaved the opened session";
  ASSERT_TRUE(QFile::exists(autosave));

  // Rewrite the autosave compactly (same session): a pretty-printed file later
  // can only come from the restarted GUI saving what it restored.
  QFile f(autosave);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QByteArray pretty = f.readAll();
  f.close();
  QByteArray compact = pretty;
  compact.replace("\n", "").replace("  ", "");
  ASSERT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(compact);
  f.close();

  // 2. Restart without a file: it restores the autosave (answering yes).
  QProcess second;
  second.setProcessEnvironment(env);
  second.start(ATTN_GUI, {"--restore-autosave", "yes"});
  ASSERT_TRUE(second.waitForStarted(10000));
  QByteArray err;
  const bool restored = waitFor(
      [&] {
        err += second.readAllStandardError();
        QFile g(autosave);
        if (!g.open(QIODevice::ReadOnly)) return false;
        const QByteArray now = g.readAll();
        return err.contains("restored the autosaved session") && now.contains("\n") &&
               now.contains("autosave survives a crash");
      },
      20000);
  second.kill();
  second.waitForFinished(5000);
  EXPECT_TRUE(restored) << err.toStdString();
}

}  // namespace
}  // namespace attn::ui
