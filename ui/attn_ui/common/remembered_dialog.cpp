#include "attn_ui/common/remembered_dialog.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>

namespace attn::ui {

QString openFileRemembered(QWidget* parent, const QString& title, const QString& settingsKey,
                           const QString& filter) {
  QSettings settings;
  const QString path =
      QFileDialog::getOpenFileName(parent, title, settings.value(settingsKey).toString(), filter);
  if (!path.isEmpty()) settings.setValue(settingsKey, QFileInfo(path).absolutePath());
  return path;
}

QString openFolderRemembered(QWidget* parent, const QString& title, const QString& settingsKey) {
  QSettings settings;
  const QString path =
      QFileDialog::getExistingDirectory(parent, title, settings.value(settingsKey).toString());
  if (!path.isEmpty()) settings.setValue(settingsKey, QFileInfo(path).absolutePath());
  return path;
}

}  // namespace attn::ui
