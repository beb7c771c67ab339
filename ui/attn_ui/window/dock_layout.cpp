#include "attn_ui/window/dock_layout.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QTimer>
#include <algorithm>

#include "attn_ui/explorer/explorer_model.h"

namespace attn::ui {
namespace {

const char* const kHideKey = "view/hideConfigurationWithModel";
const char* const kAsideKey = "window/configStepsAside";

// The widest of the shown docks' panels at their smallest unclipped size.
int neededWidth(const QList<QDockWidget*>& docks) {
  int w = 0;
  for (const QDockWidget* d : docks)
    if (!d->isHidden() && d->widget()) w = std::max(w, d->widget()->minimumSizeHint().width());
  return w;
}

}  // namespace

DockLayout::DockLayout(QMainWindow* window, ExplorerModel* model, QDockWidget* configDock, QMenu* viewMenu)
    : QObject(window),
      window_(window),
      model_(model),
      configDock_(configDock),
      hideWithModel_(new QAction(tr("Hide &Configuration While a Model Is Open"), this)) {
  hideWithModel_->setCheckable(true);
  hideWithModel_->setChecked(QSettings().value(kHideKey, true).toBool());
  hideWithModel_->setToolTip(
      tr("A pretrained model fixes every configuration control; its card in the Input "
         "panel says what it is, and the maps get the room."));
  hideWithModel_->setStatusTip(hideWithModel_->toolTip());
  viewMenu->addAction(hideWithModel_);
  connect(hideWithModel_, &QAction::toggled, this, [this](bool hide) {
    QSettings().setValue(kHideKey, hide);
    if (!hide && steppedAside_) {
      steppedAside_ = false;
      configDock_->show();
    } else if (hide) {
      followModel();
    }
  });
  // Shown again by hand (View > Panels) while the model is open: it stays.
  connect(configDock_->toggleViewAction(), &QAction::triggered, this, [this] { steppedAside_ = false; });
  connect(model_, &ExplorerModel::modelChanged, this, &DockLayout::followModel);
}

QWidget* DockLayout::scrollable(QWidget* panel) {
  auto* scroll = new QScrollArea;
  scroll->setObjectName(QString::fromLatin1(panel->metaObject()->className()));
  scroll->setWidget(panel);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  // The dock keeps the panel's width; only the height scrolls.
  scroll->setMinimumWidth(panel->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width());
  return scroll;
}

void DockLayout::followModel() {
  raiseForMode();
  if (model_->hasModel()) {
    if (hideWithModel_->isChecked() && !configDock_->isHidden()) {
      steppedAside_ = true;
      configDock_->hide();
      fitLeftColumn();  // the Input dock alone needs less: the heatmap gets it
    }
  } else if (steppedAside_) {
    steppedAside_ = false;
    configDock_->show();
  }
}

QList<QDockWidget*> DockLayout::shownDocks(Qt::DockWidgetArea area) const {
  QList<QDockWidget*> out;
  for (QDockWidget* d : window_->findChildren<QDockWidget*>())
    if (!d->isHidden() && !d->isFloating() && window_->dockWidgetArea(d) == area) out << d;
  return out;
}

void DockLayout::fitLeftColumn() {
  const QList<QDockWidget*> left = shownDocks(Qt::LeftDockWidgetArea);
  if (left.isEmpty()) return;
  const int w = window_->width();
  window_->resizeDocks({left.front()}, {std::min(std::max(neededWidth(left), w / 5), w / 3)}, Qt::Horizontal);
}

void DockLayout::applyDefaultSizes() {
  const int w = window_->width();
  const QList<QDockWidget*> left = shownDocks(Qt::LeftDockWidgetArea);
  const QList<QDockWidget*> right = shownDocks(Qt::RightDockWidgetArea);
  QList<QDockWidget*> docks;
  QList<int> widths;
  if (!left.isEmpty()) {
    docks << left.front();
    widths << std::min(std::max(neededWidth(left), w / 5), w / 3);
  }
  if (!right.isEmpty()) {
    docks << right.front();
    widths << std::min(std::max(neededWidth(right), w / 4), w / 3);
  }
  window_->resizeDocks(docks, widths, Qt::Horizontal);
  stackRightColumn();
}

void DockLayout::stackRightColumn() {
  // Every right-hand dock in creation order, hidden ones too (opened later
  // from View > Panels, they join the tabs instead of squeezing the column).
  QList<QDockWidget*> right;
  for (QDockWidget* d : window_->findChildren<QDockWidget*>())
    if (!d->isFloating() && window_->dockWidgetArea(d) == Qt::RightDockWidgetArea) right << d;
  QList<QDockWidget*> shown;
  for (QDockWidget* d : right)
    if (!d->isHidden()) shown << d;
  if (shown.size() < 3) return;
  // Heads and Metrics stay on top of each other; the rest are tabs below.
  // They scroll, so the tallest of them does not take the metrics' height.
  QDockWidget* group = shown[2];
  for (QDockWidget* d : right) {
    if (d == shown[0] || d == shown[1]) continue;
    if (d->widget() && !qobject_cast<QScrollArea*>(d->widget())) d->setWidget(scrollable(d->widget()));
    if (d != group) window_->tabifyDockWidget(group, d);
  }
  predictions_ = group;
  steps_ = shown.size() > 3 ? shown[3] : nullptr;
  raiseForMode();
  // Heights once the window is laid out (before that the column has none).
  QTimer::singleShot(0, this, [this, heads = shown[0], metrics = shown[1], group] {
    const int h = window_->height();
    const int top = std::min(heads->widget()->sizeHint().height() + 30, h / 4);
    const int rest = std::max(0, h - top);
    window_->resizeDocks({heads, metrics, group}, {top, rest * 3 / 5, rest * 2 / 5}, Qt::Vertical);
  });
}

void DockLayout::raiseForMode() {
  // Predictions need a model; without one the step-through has something to show.
  QDockWidget* front = model_->hasModel() || !steps_ ? predictions_ : steps_;
  if (front && !front->isHidden()) front->raise();
}

void DockLayout::save(QSettings& settings) const { settings.setValue(kAsideKey, steppedAside_); }

void DockLayout::restore(QSettings& settings) {
  // Saved while a model had it hidden: no model is open at start, so it is back.
  if (settings.value(kAsideKey, false).toBool() && !model_->hasModel()) configDock_->show();
}

}  // namespace attn::ui
