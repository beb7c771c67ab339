#include "attn_ui/heatmap_widget.h"

#include <algorithm>

#include "attn_ui/colormaps.h"

namespace attn::ui {
namespace {

// Show every label while they fit; thin to every k-th beyond that.
QSharedPointer<QCPAxisTickerText> labelTicker(const QStringList& labels, int maxLabels) {
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  const int n = static_cast<int>(labels.size());
  const int step = std::max(1, (n + maxLabels - 1) / std::max(1, maxLabels));
  for (int i = 0; i < n; i += step) ticker->addTick(i, labels[i]);
  return ticker;
}

}  // namespace

HeatmapWidget::HeatmapWidget(QWidget* parent) : QCustomPlot(parent) {
  setMinimumSize(320, 240);
  title_ = new QCPTextElement(this, QString(), QFont(font().family(), font().pointSize() + 1, QFont::Bold));
  plotLayout()->insertRow(0);
  plotLayout()->addElement(0, 0, title_);

  map_ = new QCPColorMap(xAxis, yAxis);
  scale_ = new QCPColorScale(this);
  plotLayout()->addElement(1, 1, scale_);
  scale_->setType(QCPAxis::atRight);
  map_->setColorScale(scale_);
  map_->setInterpolate(false);
  auto* group = new QCPMarginGroup(this);
  axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  scale_->setMarginGroup(QCP::msBottom | QCP::msTop, group);

  yAxis->setRangeReversed(true);  // row 0 at the top, as in a matrix
  xAxis->setTickLabelRotation(60);
  for (QCPAxis* ax : {xAxis, yAxis}) {
    ax->setSubTicks(false);
    ax->setTickLength(0, 3);
    ax->grid()->setVisible(false);
  }
  xAxis->setLabel(tr("key"));
  yAxis->setLabel(tr("query"));
  setColormap("viridis");
  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
}

void HeatmapWidget::setMatrix(const attn::Mat& values, const QStringList& rowLabels,
                              const QStringList& colLabels, const QString& title, double lo,
                              double hi) {
  values_ = values;
  rowLabels_ = rowLabels;
  colLabels_ = colLabels;
  const int rows = static_cast<int>(values.rows()), cols = static_cast<int>(values.cols());
  map_->data()->setSize(cols, rows);
  map_->data()->setRange(QCPRange(0, std::max(0, cols - 1)), QCPRange(0, std::max(0, rows - 1)));
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) map_->data()->setCell(c, r, values(r, c));
  if (lo < hi) {
    map_->setDataRange(QCPRange(lo, hi));
  } else {
    map_->rescaleDataRange(true);
  }
  title_->setText(title);
  applyLabels();
  xAxis->setRange(-0.5, cols - 0.5);
  yAxis->setRange(-0.5, rows - 0.5);
  replot();
}

void HeatmapWidget::applyLabels() {
  // Roughly one label per 14 px of axis; at least a handful.
  const int maxX = std::max(4, axisRect()->width() / 14);
  const int maxY = std::max(4, axisRect()->height() / 14);
  xAxis->setTicker(labelTicker(colLabels_, maxX));
  yAxis->setTicker(labelTicker(rowLabels_, maxY));
}

void HeatmapWidget::setColormap(const QString& name) {
  map_->setGradient(colormapGradient(name));
  replot();
}

void HeatmapWidget::setColorScaleLabel(const QString& label) { scale_->axis()->setLabel(label); }

}  // namespace attn::ui
