#pragma once
// File > Open/Save Session and the recent-sessions list: gathers the input,
// configuration and view from the window into an attn::Session and back.
#include <QObject>
#include <QString>

#include "attn/io/session.h"

class QMenu;

namespace attn::ui {

class MainWindow;

class SessionController : public QObject {
  Q_OBJECT
 public:
  /// Adds its actions to the window's File menu.
  explicit SessionController(MainWindow* window);

  attn::Session capture() const;
  /// Applies a session to the window (input, configuration, then view).
  void apply(const attn::Session& s);
  /// Loads and applies; on error shows it in the window and returns false.
  bool openPath(const QString& path);
  bool savePath(const QString& path);
  const QString& currentPath() const { return path_; }

 signals:
  void message(const QString& text);

 private:
  void openDialog();
  void save();
  void saveAs();
  void remember(const QString& path);
  void refreshRecent();

  MainWindow* window_;
  QMenu* recent_ = nullptr;
  QString path_;
};

}  // namespace attn::ui
