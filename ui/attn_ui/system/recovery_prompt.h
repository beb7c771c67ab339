#pragma once
// The questions and messages main() shows around the autosave, in the ui
// library so they go through the translation catalogue (lupdate reads ui/).
#include <QCoreApplication>
#include <QDateTime>
#include <QString>

class QMessageBox;
class QWidget;

namespace attn::ui {

class RecoveryPrompt {
  Q_DECLARE_TR_FUNCTIONS(attn::ui::RecoveryPrompt)

 public:
  /// "AttnScope did not exit cleanly. Restore the session autosaved at ...?"
  /// as a Yes/No box (not shown; the caller execs it).
  static QMessageBox* question(QWidget* parent, const QDateTime& savedAt);
  /// Asks and returns true for Yes.
  static bool ask(QWidget* parent, const QDateTime& savedAt);
  /// The status-bar message for a failed autosave.
  static QString saveFailed(const QString& message);
};

}  // namespace attn::ui
