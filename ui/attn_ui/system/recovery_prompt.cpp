#include "attn_ui/system/recovery_prompt.h"

#include <QMessageBox>

namespace attn::ui {
QMessageBox* RecoveryPrompt::question(QWidget* parent, const QDateTime& savedAt) {
  auto* box = new QMessageBox(QMessageBox::Question, tr("Restore session"),
                              tr("AttnScope did not exit cleanly. Restore the session autosaved at %1?")
                                  .arg(savedAt.toString(QStringLiteral("yyyy-MM-dd HH:mm"))),
                              QMessageBox::Yes | QMessageBox::No, parent);
  box->setDefaultButton(QMessageBox::Yes);
  return box;
}

bool RecoveryPrompt::ask(QWidget* parent, const QDateTime& savedAt) {
  QMessageBox* box = question(parent, savedAt);
  const bool yes = box->exec() == QMessageBox::Yes;
  delete box;
  return yes;
}

QString RecoveryPrompt::saveFailed(const QString& message) { return tr("Autosave failed: %1").arg(message); }

}  // namespace attn::ui
