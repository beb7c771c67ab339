#include "attn_ui/window/recent_paths_menu.h"

#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace attn::ui {
namespace {
// A name in a store rather than a path ("ollama:llama3.2:1b"): kept and shown as given. Only the
// stores AttnScope reads: a relative file named "a:b" stays a path.
bool isStoreEntry(const QString& entry) { return entry.startsWith(QLatin1String("ollama:")); }
}  // namespace

RecentPathsMenu::RecentPathsMenu(const QString& title, QString settingsKey, int maxEntries, QWidget* parent,
                                 std::function<void(const QString&)> open)
    : QObject(parent), key_(std::move(settingsKey)), max_(maxEntries), menu_(new QMenu(title, parent)),
      open_(std::move(open)) {
  menu_->setToolTipsVisible(true);
  refresh();
}

QStringList RecentPathsMenu::stored(const QString& settingsKey) {
  return QSettings().value(settingsKey).toStringList();
}

void RecentPathsMenu::remember(const QString& path) {
  QSettings settings;
  QStringList list = settings.value(key_).toStringList();
  const QString abs = isStoreEntry(path) ? path : QFileInfo(path).absoluteFilePath();
  list.removeAll(abs);
  list.prepend(abs);
  while (list.size() > max_) list.removeLast();
  settings.setValue(key_, list);
  refresh();
}

void RecentPathsMenu::forget(const QString& path) {
  QSettings settings;
  QStringList list = settings.value(key_).toStringList();
  list.removeAll(path);
  settings.setValue(key_, list);
  refresh();
}

void RecentPathsMenu::refresh() {
  menu_->clear();
  const QStringList list = paths();
  for (int i = 0; i < list.size(); ++i) {
    const QString p = list[i];
    const QString name = isStoreEntry(p) ? p : QFileInfo(p).fileName();
    // &1..&9 as mnemonics; the tooltip has the full path.
    const QString label = i < 9 ? QStringLiteral("&%1 %2").arg(i + 1).arg(name) : name;
    QAction* a = menu_->addAction(label, this, [this, p] { open_(p); });
    a->setToolTip(p);
    a->setStatusTip(p);
    a->setData(p);  // the entry names a file, not a translatable command
  }
  if (list.isEmpty()) menu_->addAction(tr("(none)"))->setEnabled(false);
}

}  // namespace attn::ui
