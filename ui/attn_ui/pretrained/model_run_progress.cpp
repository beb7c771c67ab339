#include "attn_ui/pretrained/model_run_progress.h"

#include <QMainWindow>
#include <QStatusBar>

#include "attn_ui/common/background_job.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/pretrained/status_progress.h"

namespace attn::ui {

ModelRunProgress::ModelRunProgress(QMainWindow* window, ExplorerModel* model)
    : QObject(window),
      window_(window),
      model_(model),
      status_(new StatusProgress(window, tr("Stop the model run (Esc); the view keeps the previous run."),
                                 this)) {
  delay_.setSingleShot(true);
  delay_.setInterval(300);
  connect(&delay_, &QTimer::timeout, this, &ModelRunProgress::showRunning);
  connect(model_, &ExplorerModel::modelRunStarted, this, [this] {
    if (status_->running())
      showRunning();  // the next request of a series: follow its job
    else
      delay_.start();
  });
  connect(model_, &ExplorerModel::busyChanged, this, [this](bool busy) {
    if (busy) return;
    delay_.stop();
    status_->stop();
  });
  connect(status_, &StatusProgress::cancelRequested, model_, &ExplorerModel::cancelModelRun);
  connect(model_, &ExplorerModel::modelRunCancelled, this, [this] {
    delay_.stop();
    status_->stop();
    window_->statusBar()->showMessage(cancelledMessage(), 6000);
  });
}

QString ModelRunProgress::cancelledMessage() { return tr("Cancelled: the view keeps the previous run."); }

void ModelRunProgress::showRunning() {
  if (const auto control = model_->modelRunControl()) status_->startFor(control);
}

}  // namespace attn::ui
