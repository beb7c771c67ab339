#include "attn_ui/window/translations.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QSettings>
#include <QTranslator>

namespace attn::ui {
namespace {
constexpr const char* kSettingsKey = "ui/language";
}

QStringList uiLanguages() { return {"en", "zh_CN"}; }

QString resolveUiLanguage(const QString& requested) {
  if (uiLanguages().contains(requested)) return requested;
  const QString saved = QSettings().value(kSettingsKey).toString();
  if (uiLanguages().contains(saved)) return saved;
  return QLocale::system().name().startsWith("zh") ? QStringLiteral("zh_CN") : QStringLiteral("en");
}

void saveUiLanguage(const QString& lang) {
  if (uiLanguages().contains(lang)) QSettings().setValue(kSettingsKey, lang);
}

bool installUiTranslators(QCoreApplication& app, const QString& lang) {
  // Kept for the process's lifetime; replaced on a second call.
  static QTranslator* ours = nullptr;
  static QTranslator* qt = nullptr;
  for (QTranslator** t : {&ours, &qt})
    if (*t) {
      QCoreApplication::removeTranslator(*t);
      delete *t;
      *t = nullptr;
    }
  ours = new QTranslator(&app);
  // qt_add_translations embeds the .qm files under :/i18n.
  const bool ok = ours->load(QStringLiteral(":/i18n/attnscope_%1.qm").arg(lang));
  if (ok) QCoreApplication::installTranslator(ours);
  qt = new QTranslator(&app);  // Qt's own dialogs and buttons
  if (qt->load(QLocale(lang), "qtbase", "_", QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
    QCoreApplication::installTranslator(qt);
  return ok;
}

}  // namespace attn::ui
