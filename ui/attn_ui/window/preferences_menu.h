#pragma once
// Preferences that live in the View menu and persist with QSettings: the
// sequence length above which N x N is not materialized, and the language.
#include <QObject>

namespace attn::ui {

class MainWindow;

class PreferencesMenu : public QObject {
  Q_OBJECT
 public:
  explicit PreferencesMenu(MainWindow* window);

  /// The saved limit (default 4096), applied to the model at start-up.
  static int savedTokenLimit();

 private:
  MainWindow* window_;
};

}  // namespace attn::ui
