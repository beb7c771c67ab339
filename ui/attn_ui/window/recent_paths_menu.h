#pragma once
// A "Recent …" submenu backed by QSettings: most recent first, absolute paths,
// at most `maxEntries`, &1..&9 mnemonics with the full path as tooltip, "(none)"
// when empty. File > Recent Files and File > Recent Models are two of these. An
// entry naming a model in a store ("ollama:NAME:TAG") is kept and shown as given.
#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>

class QMenu;
class QWidget;

namespace attn::ui {

class RecentPathsMenu : public QObject {
  Q_OBJECT
 public:
  /// `open` is called with the path of the entry the user picks.
  RecentPathsMenu(const QString& title, QString settingsKey, int maxEntries, QWidget* parent,
                  std::function<void(const QString&)> open);

  /// The stored list under `settingsKey` (most recent first).
  static QStringList stored(const QString& settingsKey);
  QStringList paths() const { return stored(key_); }
  QMenu* menu() const { return menu_; }
  /// Moves `path` (made absolute) to the top, trimming the list to maxEntries.
  void remember(const QString& path);
  /// Removes `path` (as stored) from the list.
  void forget(const QString& path);

 private:
  void refresh();

  QString key_;
  int max_;
  QMenu* menu_;
  std::function<void(const QString&)> open_;
};

}  // namespace attn::ui
