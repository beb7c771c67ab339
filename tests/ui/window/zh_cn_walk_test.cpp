// In Simplified Chinese, every string AttnScope shows is translated: a
// recording translator (installed below the real ones, so it sees only what
// neither AttnScope's nor Qt's qtbase catalogue translated) must stay empty for
// the application's contexts while the main window, its menus, the About box,
// the crash-recovery question and the dialogs the menus open are built; their
// buttons (Qt's own Yes/No, Close, Cancel) come out in Chinese too.
#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QApplication>
#include <QDateTime>
#include <QDialog>
#include <QLabel>
#include <QLibraryInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QTimer>
#include <QTranslator>
#include <memory>

#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/system/about_dialog.h"
#include "attn_ui/system/recovery_prompt.h"
#include "attn_ui/window/main_window.h"
#include "attn_ui/window/translations.h"

namespace attn::ui {
namespace {

class MissRecorder : public QTranslator {
 public:
  bool isEmpty() const override { return false; }
  QString translate(const char* context, const char* source, const char*, int) const override {
    static const QRegularExpression words(QStringLiteral("[A-Za-z]{2,}"));
    const QString ctx = QString::fromLatin1(context);
    if ((ctx.startsWith(QLatin1String("attn")) || ctx == QLatin1String("ModelText")) &&
        QString::fromUtf8(source).contains(words))
      misses.insert(ctx + QStringLiteral(" | ") + QString::fromUtf8(source));
    return {};
  }
  mutable QSet<QString> misses;
};

bool hasCjk(const QString& s) {
  for (QChar c : s)
    if (c.unicode() >= 0x3000 && c.unicode() <= 0x9fff) return true;
  return false;
}

// Text a user reads as English: two or more Latin letters and no Chinese, not a
// name that stays as it is.
bool looksEnglish(QString s) {
  s.remove(QLatin1Char('&'));
  for (const char* name : {"AttnScope", "Qt", "Eigen", "English", "Softmax", "CSV", "PNG", "SVG", "PDF", "JSON",
                           "BERT", "GPT", "Performer", "Linformer",
                           // technical values and units, the same in every language
                           "DPI", "AVX512", "avx512", "AVX2", "avx2", "AVX", "FMA", "SSE", "SSSE", "baseline"})
    s.remove(QLatin1String(name));
  static const QRegularExpression words(QStringLiteral("[A-Za-z]{2,}"));
  return !hasCjk(s) && s.contains(words);
}

QStringList englishTexts(QWidget* w) {
  QStringList out;
  for (auto* b : w->findChildren<QAbstractButton*>())
    if (b->isVisibleTo(w) && looksEnglish(b->text())) out << QStringLiteral("button: ") + b->text();
  for (auto* l : w->findChildren<QLabel*>())
    if (l->isVisibleTo(w) && l->textFormat() != Qt::RichText && looksEnglish(l->text()) && l->text().size() < 200)
      out << QStringLiteral("label: ") + l->text();
  return out;
}

void collectActions(QMenu* menu, QList<QAction*>& out) {
  for (QAction* a : menu->actions()) {
    if (a->isSeparator()) continue;
    out << a;
    if (a->menu()) collectActions(a->menu(), out);
  }
}

class ZhCnWalk : public ::testing::Test {
 protected:
  void SetUp() override {
    app = qobject_cast<QApplication*>(QCoreApplication::instance());
    ASSERT_NE(app, nullptr);
    // A fresh window: recent files and sessions an earlier test in this process opened (named
    // after their files, untranslatable) would otherwise read as English menu entries.
    QSettings().clear();
    QCoreApplication::installTranslator(&recorder);  // below the real ones: asked only when they miss
    ASSERT_TRUE(installUiTranslators(*app, QStringLiteral("zh_CN")));
  }
  void TearDown() override {
    installUiTranslators(*app, QStringLiteral("en"));
    QCoreApplication::removeTranslator(&recorder);
  }
  QApplication* app = nullptr;
  MissRecorder recorder;
};

TEST_F(ZhCnWalk, QtsOwnCatalogueIsInstalled) {
  // qt6-translations-l10n: Qt's standard buttons and dialogs in Chinese.
  QTranslator qt;
  ASSERT_TRUE(qt.load(QLocale(QStringLiteral("zh_CN")), QStringLiteral("qtbase"), QStringLiteral("_"),
                      QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
      << "qtbase_zh_CN.qm not found in " << QLibraryInfo::path(QLibraryInfo::TranslationsPath).toStdString();
  QMessageBox box(QMessageBox::Question, QStringLiteral("t"), QStringLiteral("t"), QMessageBox::Yes | QMessageBox::No);
  EXPECT_TRUE(hasCjk(box.button(QMessageBox::Yes)->text())) << box.button(QMessageBox::Yes)->text().toStdString();
  EXPECT_TRUE(hasCjk(box.button(QMessageBox::No)->text())) << box.button(QMessageBox::No)->text().toStdString();
}

TEST_F(ZhCnWalk, MainWindowMenusAndDialogsHaveNoUntranslatedString) {
  MainWindow w;
  w.show();
  w.model()->waitForIdle();
  QCoreApplication::processEvents();

  QStringList english;
  QList<QAction*> actions;
  for (QAction* top : w.menuBar()->actions())
    if (top->menu()) {
      if (looksEnglish(top->text())) english << QStringLiteral("menu: ") + top->text();
      collectActions(top->menu(), actions);
    }
  for (QAction* a : actions)
    if (looksEnglish(a->text()) && !a->data().isValid()) english << QStringLiteral("action: ") + a->text();

  // The About box and the crash-recovery question.
  AboutDialog about(&w);
  english << englishTexts(&about);
  EXPECT_TRUE(hasCjk(about.windowTitle()));
  std::unique_ptr<QMessageBox> recovery(RecoveryPrompt::question(&w, QDateTime::currentDateTime()));
  english << englishTexts(recovery.get());
  EXPECT_TRUE(hasCjk(recovery->text())) << recovery->text().toStdString();
  EXPECT_TRUE(hasCjk(RecoveryPrompt::saveFailed(QStringLiteral("x"))));

  // Every dialog a menu opens ("…"): read it while it is up, then close it.
  int opened = 0;
  for (QAction* a : actions) {
    if (!a->isEnabled() || a->menu() || !(a->text().endsWith(QStringLiteral("…")) || a->text().endsWith(QStringLiteral("..."))))
      continue;
    QTimer::singleShot(0, &w, [&, a] {
      if (QWidget* modal = QApplication::activeModalWidget()) {
        ++opened;
        const QStringList found = englishTexts(modal);
        for (const QString& t : found) english << a->text() + QStringLiteral(" > ") + t;
        if (auto* d = qobject_cast<QDialog*>(modal)) d->reject();
        else modal->close();
      }
    });
    a->trigger();
    QCoreApplication::processEvents();
  }
  EXPECT_GT(opened, 0);
  EXPECT_TRUE(english.isEmpty()) << english.join(QStringLiteral("\n")).toStdString();
  QStringList misses(recorder.misses.begin(), recorder.misses.end());
  misses.sort();
  EXPECT_TRUE(misses.isEmpty()) << "not in attnscope_zh_CN.ts:\n" << misses.join(QStringLiteral("\n")).toStdString();
}

}  // namespace
}  // namespace attn::ui
