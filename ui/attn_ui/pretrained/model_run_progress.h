#pragma once
// A model run's progress in the status bar: the layer the forward is in, a bar and
// a Cancel button (Esc does the same, through the heatmap's Unpin Row), shown once a
// run has taken longer than a moment. A cancelled run leaves the shown run as it was
// and the status bar says so.
#include <QObject>
#include <QTimer>

class QMainWindow;

namespace attn::ui {

class ExplorerModel;
class StatusProgress;

class ModelRunProgress : public QObject {
  Q_OBJECT
 public:
  ModelRunProgress(QMainWindow* window, ExplorerModel* model);

  StatusProgress* status() const { return status_; }
  /// How long a run goes before its progress shows (short runs do not flash a bar).
  void setShowDelayMs(int ms) { delay_.setInterval(ms); }
  /// What the status bar says after a cancel.
  static QString cancelledMessage();

 private:
  void showRunning();

  QMainWindow* window_;
  ExplorerModel* model_;
  StatusProgress* status_;
  QTimer delay_;
};

}  // namespace attn::ui
