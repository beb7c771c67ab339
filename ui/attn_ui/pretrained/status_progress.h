#pragma once
// A stage label, a progress bar and a Cancel button at the right of a window's
// status bar, hidden until a worker starts: the controllers that run long work
// on a worker (opening a model, the intervened forward pass) each own one and
// give it their job's control (stage and fraction).
#include <QObject>
#include <QString>
#include <functional>
#include <memory>
#include <utility>

#include "attn_ui/common/background_job.h"

class QLabel;
class QMainWindow;
class QProgressBar;
class QTimer;
class QToolButton;

namespace attn::ui {

class StatusProgress : public QObject {
  Q_OBJECT

 public:
  /// (stage text, fraction done in [0, 1]) of the running job, read under its lock.
  using Reader = std::function<std::pair<QString, double>()>;

  StatusProgress(QMainWindow* window, const QString& cancelToolTip, QObject* parent);

  /// Shows the widgets and polls `read` every 50 ms until stop().
  void start(Reader read);
  /// start() on a worker job's progress; the job is held weakly (a finished
  /// or superseded job reads as empty).
  void startFor(const std::shared_ptr<JobControl>& job) {
    start([weak = std::weak_ptr<JobControl>(job)] {
      const auto j = weak.lock();
      return j ? j->progress() : std::pair<QString, double>{};
    });
  }
  void stop();
  bool running() const;

  QProgressBar* bar() const { return bar_; }
  QToolButton* cancelButton() const { return cancel_; }
  QLabel* stageLabel() const { return stage_; }

 signals:
  void cancelRequested();

 private:
  void update();

  QLabel* stage_;
  QProgressBar* bar_;
  QToolButton* cancel_;
  QTimer* poll_;
  Reader read_;
};

}  // namespace attn::ui
