#pragma once
// User-interface language: English or Simplified Chinese, from Qt Linguist
// .ts files (resources/translations) compiled into the library as .qm.
#include <QString>
#include <QStringList>

class QCoreApplication;

namespace attn::ui {

/// Languages offered: "en", "zh_CN".
QStringList uiLanguages();
/// The language to start in: `requested` (from --lang) when given and known,
/// else the saved preference, else the system locale's (zh* -> zh_CN), else en.
QString resolveUiLanguage(const QString& requested);
/// Saves the preference read by resolveUiLanguage.
void saveUiLanguage(const QString& lang);
/// Installs AttnScope's and Qt's own translators for `lang` (replacing any
/// installed before); false when the catalogue cannot be loaded.
bool installUiTranslators(QCoreApplication& app, const QString& lang);

}  // namespace attn::ui
