#include "attn_ui/pretrained/pruning_curve_plot.h"

#include <algorithm>

#include "attn_ui/theme/plot_theme.h"

namespace attn::ui {

PruningCurvePlot::PruningCurvePlot(QWidget* parent) : QCustomPlot(parent), graph_(addGraph()), baseline_(new QCPItemStraightLine(this)) {
  graph_->setPen(QPen(QColor(0x1f, 0x77, 0xb4), 2));
  graph_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
  baseline_->setPen(QPen(QColor(0x99, 0x99, 0x99), 1, Qt::DashLine));
  baseline_->setVisible(false);
  xAxis->setLabel(tr("fraction of heads removed"));
  xAxis->setRange(0, 1);
  setMinimumHeight(140);
  followPalette(this);
  setToolTip(tr("Pruning curve: heads removed from the least to the most important."));
}

void PruningCurvePlot::clearCurve() {
  graph_->data()->clear();
  baseline_->setVisible(false);
  yAxis->setLabel(QString());
  replot();
}

void PruningCurvePlot::setCurve(const attn::models::HeadImportance& imp) {
  if (imp.curve.empty()) return clearCurve();
  QVector<double> x, y;
  for (const auto& p : imp.curve) {
    x << p.fraction;
    y << p.value;
  }
  graph_->setData(x, y, true);
  // The measure's short name; the whole sentence is the panel's tooltip.
  const bool loss = imp.curveMeasure.find("loss") != std::string::npos;
  yAxis->setLabel(loss ? tr("mean next-token loss (nats)") : tr("final hidden-state change"));
  baseline_->point1->setCoords(0, imp.curve.front().value);
  baseline_->point2->setCoords(1, imp.curve.front().value);
  baseline_->setVisible(true);
  xAxis->setRange(0, std::max(1e-9, imp.curve.back().fraction));
  graph_->rescaleValueAxis(false, true);
  const QCPRange r = yAxis->range();
  yAxis->setRange(r.lower - 0.05 * r.size() - 1e-9, r.upper + 0.05 * r.size() + 1e-9);
  replot();
}

QVector<QPointF> PruningCurvePlot::points() const {
  QVector<QPointF> out;
  for (auto it = graph_->data()->constBegin(); it != graph_->data()->constEnd(); ++it) out << QPointF(it->key, it->value);
  return out;
}

}  // namespace attn::ui
