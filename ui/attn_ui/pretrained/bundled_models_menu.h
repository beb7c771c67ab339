#pragma once
// The models the project trains and ships (attn/models/bundled_models.h), one
// click away: File > Open Bundled Model lists them, the Examples menu lists each
// one's example sentences (choosing one opens that model on it) and, below, the
// text examples of the random-projection explorer (choosing one closes the
// model). The window opens the default bundled model at start (app/gui/main.cpp).
#include <QObject>
#include <QString>

class QMenu;

namespace attn::ui {

class MainWindow;

class BundledModelsMenu : public QObject {
  Q_OBJECT
 public:
  /// Adds File > Open Bundled Model (after Recent Models) and the Examples menu.
  explicit BundledModelsMenu(MainWindow* window);

  /// Opens bundled model `name` on `sentence` (its first example when empty); if
  /// the model is open already, only the text changes. False, with a message in
  /// the window's error banner, when that model is not installed.
  bool open(const QString& name, const QString& sentence = {});
  /// open() on the default model and its first example; false (the explorer
  /// stays, a note in the status bar) when it is not installed.
  bool openDefault();

  QMenu* openMenu() const { return openMenu_; }
  QMenu* examplesMenu() const { return examples_; }
  /// What the menus say a bundled model shows (translated).
  static QString description(const QString& name);

 private:
  void buildOpenMenu();
  void buildExamplesMenu();
  void showCardHeadOnFirstRun(const QString& folder, int layer, int head);

  MainWindow* window_;
  QMenu* openMenu_;
  QMenu* examples_;
  QString openPath_;                     // the bundled folder last opened, while its model is shown
  QMetaObject::Connection pendingHead_;  // shows the entry's head on the model's first run
};

}  // namespace attn::ui
