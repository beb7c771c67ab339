#include "attn_ui/pretrained/status_progress.h"

#include <QLabel>
#include <QMainWindow>
#include <QProgressBar>
#include <QStatusBar>
#include <QTimer>
#include <QToolButton>
#include <algorithm>

namespace attn::ui {

StatusProgress::StatusProgress(QMainWindow* window, const QString& cancelToolTip, QObject* parent)
    : QObject(parent),
      stage_(new QLabel(window)),
      bar_(new QProgressBar(window)),
      cancel_(new QToolButton(window)),
      poll_(new QTimer(this)) {
  bar_->setRange(0, 1000);
  bar_->setMaximumWidth(220);
  bar_->setTextVisible(false);
  cancel_->setText(tr("Cancel"));
  cancel_->setToolTip(cancelToolTip);
  connect(cancel_, &QToolButton::clicked, this, &StatusProgress::cancelRequested);
  for (QWidget* w : {static_cast<QWidget*>(stage_), static_cast<QWidget*>(bar_), static_cast<QWidget*>(cancel_)}) {
    window->statusBar()->addPermanentWidget(w);
    w->hide();
  }
  poll_->setInterval(50);
  connect(poll_, &QTimer::timeout, this, &StatusProgress::update);
}

void StatusProgress::start(Reader read) {
  read_ = std::move(read);
  update();
  for (QWidget* w : {static_cast<QWidget*>(stage_), static_cast<QWidget*>(bar_), static_cast<QWidget*>(cancel_)})
    w->show();
  poll_->start();
}

void StatusProgress::stop() {
  poll_->stop();
  read_ = nullptr;
  for (QWidget* w : {static_cast<QWidget*>(stage_), static_cast<QWidget*>(bar_), static_cast<QWidget*>(cancel_)})
    w->hide();
}

bool StatusProgress::running() const { return poll_->isActive(); }

void StatusProgress::update() {
  if (!read_) return;
  const auto [stage, fraction] = read_();
  bar_->setValue(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 1000.0));
  stage_->setText(stage);
}

}  // namespace attn::ui
