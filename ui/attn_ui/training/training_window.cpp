#include "attn_ui/training/training_window.h"

#include <QAction>
#include <QMenu>

#include "attn_ui/window/main_window.h"
#include "attn_ui/training/training_panel.h"

namespace attn::ui {

TrainingWindowAction::TrainingWindowAction(MainWindow& window) : QObject(&window), window_(&window) {
  QAction* a = window.viewMenu()->addAction(tr("&Training…"), this, &TrainingWindowAction::open);
  a->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
  a->setObjectName(QStringLiteral("trainingAction"));
  a->setStatusTip(tr("Train a tiny attention model and watch its maps form"));
}

TrainingPanel* TrainingWindowAction::panel() const { return panel_.data(); }

void TrainingWindowAction::open() {
  if (!panel_) {
    // A window of its own (parented for its lifetime, not embedded): a teacher puts it on the projector.
    panel_ = new TrainingPanel(window_);
    panel_->setWindowFlag(Qt::Window);
    panel_->setAttribute(Qt::WA_DeleteOnClose, false);
    panel_->resize(1280, 820);
  }
  panel_->show();
  panel_->raise();
  panel_->activateWindow();
}

}  // namespace attn::ui
