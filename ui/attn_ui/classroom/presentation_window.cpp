#include "attn_ui/classroom/presentation_window.h"

#include <QCloseEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <algorithm>
#include <qcustomplot.h>

#include "attn/spec.h"
#include "attn_ui/explorer/explorer_model.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/theme/plot_theme.h"
#include "attn_ui/classroom/step_through_panel.h"
#include "attn_ui/classroom/step_through_view.h"
#include "attn_ui/explorer/token_lines_widget.h"

namespace attn::ui {

void applyHighContrast(HeatmapWidget* plot, double fontScale) {
  const TeachingTheme t = TeachingTheme::highContrast();
  plot->setProperty(kFixedThemeProperty, true);  // the palette must not undo the high-contrast theme
  plot->setBackground(t.background);
  plot->axisRect()->setBackground(t.background);
  QFont tick = t.font(9);
  tick.setPointSizeF(9 * fontScale);
  QFont label = tick;
  label.setPointSizeF(11 * fontScale);
  for (QCPAxis* ax : {plot->xAxis, plot->yAxis, plot->colorMap()->colorScale()->axis()}) {
    ax->setBasePen(QPen(t.text));
    ax->setTickPen(QPen(t.text));
    ax->setSubTickPen(QPen(t.text));
    ax->setTickLabelColor(t.text);
    ax->setLabelColor(t.text);
    ax->setTickLabelFont(tick);
    ax->setLabelFont(label);
  }
  for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
    if (auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i))) {
      title->setTextColor(t.accent);
      QFont f = label;
      f.setBold(true);
      title->setFont(f);
    }
  plot->replot();
}

PresentationWindow::PresentationWindow(ExplorerModel* model, int views, QWidget* parent)
    : QWidget(parent, Qt::Window),
      model_(model),
      heatmap_(new HeatmapWidget(this)),
      steps_(new StepThroughView(model, this)),
      lines_(new TokenLinesWidget(this)) {
  setWindowTitle(tr("AttnScope — presentation"));
  setAttribute(Qt::WA_DeleteOnClose);
  QPalette pal = palette();
  pal.setColor(QPalette::Window, Qt::black);
  pal.setColor(QPalette::WindowText, Qt::white);
  pal.setColor(QPalette::Base, Qt::black);
  pal.setColor(QPalette::Text, Qt::white);
  pal.setColor(QPalette::Button, QColor(0x20, 0x20, 0x20));
  pal.setColor(QPalette::ButtonText, Qt::white);
  setPalette(pal);
  setAutoFillBackground(true);
  QFont big = font();
  big.setPointSizeF(font().pointSizeF() * 1.6);
  setFont(big);

  const TeachingTheme theme = TeachingTheme::highContrast();
  heatmap_->setColorScaleLabel(tr("weight"));
  applyHighContrast(heatmap_, theme.fontScale);
  steps_->panel()->setTheme(theme);
  lines_->setTheme(theme);
  steps_->attachHeatmap(heatmap_);
  // The window takes every key; children must not keep focus.
  for (QWidget* w : findChildren<QWidget*>()) w->setFocusPolicy(Qt::NoFocus);
  setFocusPolicy(Qt::StrongFocus);

  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(16, 16, 16, 16);
  layout->setSpacing(16);
  layout->addWidget(heatmap_, 3);
  layout->addWidget(steps_, 3);
  layout->addWidget(lines_, 2);

  connect(model_, &ExplorerModel::resultChanged, this, &PresentationWindow::refresh);
  connect(steps_, &StepThroughView::queryChanged, this, &PresentationWindow::refresh);
  setViews(views);
  refresh();
}

void PresentationWindow::setViews(int views) {
  if (views == 0) views = StepThrough;  // never an empty screen
  views_ = views;
  heatmap_->setVisible(views & Heatmap);
  steps_->setVisible(views & StepThrough);
  lines_->setVisible(views & TokenLines);
}

void PresentationWindow::refresh() {
  if (!model_->hasResult()) return;
  const auto& res = model_->result();
  const int h = model_->currentHead();
  heatmap_->setMatrix(model_->currentWeights(), model_->queryLabels(), model_->keyLabels(),
                      tr("Head %1 of %2 — mask: %3")
                          .arg(h + 1)
                          .arg(res.numHeads())
                          .arg(QString::fromStdString(model_->resultSpec().mask.spec())),
                      0.0, 1.0);
  lines_->setData(model_->queryLabels(), model_->keyLabels(), {model_->currentWeights()}, {h});
  lines_->setFocusToken(TokenLinesWidget::Side::Query, steps_->query());
}

void PresentationWindow::keyPressEvent(QKeyEvent* e) {
  auto* panel = steps_->panel();
  const bool shift = e->modifiers() & Qt::ShiftModifier;
  switch (e->key()) {
    case Qt::Key_Right: case Qt::Key_Space: case Qt::Key_PageDown: panel->next(); break;
    case Qt::Key_Left: case Qt::Key_Backspace: case Qt::Key_PageUp: panel->previous(); break;
    case Qt::Key_Down: steps_->setQuery(std::min(steps_->query() + 1, model_->hasResult() ? model_->result().nq() - 1 : 0)); break;
    case Qt::Key_Up: steps_->setQuery(std::max(steps_->query() - 1, 0)); break;
    case Qt::Key_H:
      if (model_->hasResult()) {
        const int n = model_->result().numHeads();
        model_->setCurrentHead((model_->currentHead() + (shift ? n - 1 : 1)) % n);
      }
      break;
    case Qt::Key_1: setViews(views_ ^ Heatmap); break;
    case Qt::Key_2: setViews(views_ ^ StepThrough); break;
    case Qt::Key_3: setViews(views_ ^ TokenLines); break;
    case Qt::Key_F11: case Qt::Key_F: setWindowState(windowState() ^ Qt::WindowFullScreen); break;
    case Qt::Key_Escape: close(); break;
    default: QWidget::keyPressEvent(e); return;
  }
  e->accept();
}

void PresentationWindow::closeEvent(QCloseEvent* e) {
  emit closed();
  e->accept();
}

}  // namespace attn::ui
