#include "attn_ui/window/hidden_panel_gate.h"

#include <QEvent>
#include <QWidget>

namespace attn::ui {

HiddenPanelGate::HiddenPanelGate(QWidget* panel, std::function<void()> work)
    : QObject(panel), panel_(panel), work_(std::move(work)) {
  panel->installEventFilter(this);
}

void HiddenPanelGate::request() {
  if (panel_->window()->isVisible() && !panel_->isVisible()) {
    pending_ = true;
    return;
  }
  pending_ = false;
  work_();
}

bool HiddenPanelGate::eventFilter(QObject* watched, QEvent* event) {
  if (watched == panel_ && event->type() == QEvent::Show && pending_) {
    pending_ = false;
    work_();
  }
  return QObject::eventFilter(watched, event);
}

}  // namespace attn::ui
