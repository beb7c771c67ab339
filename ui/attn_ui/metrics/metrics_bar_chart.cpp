#include "attn_ui/metrics/metrics_bar_chart.h"

#include "attn/analysis/measure_table.h"
#include "attn_ui/common/core_text.h"
#include "attn_ui/metrics/metrics_text.h"
#include "attn_ui/theme/plot_theme.h"

#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace attn::ui {
namespace {

QCPBars* makeBars(QCustomPlot* plot, const QColor& fill) {
  auto* b = new QCPBars(plot->xAxis, plot->yAxis);
  b->setWidth(0.7);
  b->setPen(QPen(fill.darker(130)));
  b->setBrush(fill);
  b->setAntialiased(false);
  return b;
}

}  // namespace

MetricsBarChart::MetricsBarChart(QWidget* parent) : QCustomPlot(parent) {
  normal_ = makeBars(this, QColor(70, 120, 190));
  flaggedBars_ = makeBars(this, QColor(230, 140, 30));
  // The selected head is outlined on top, so a flagged head keeps its warning colour.
  selectedBars_ = makeBars(this, QColor(0, 0, 0, 0));
  selectedBars_->setPen(QPen(QColor(20, 20, 20), 2.5));
  boundLine_ = new QCPItemStraightLine(this);
  boundLine_->setPen(QPen(QColor(200, 40, 40), 1.5, Qt::DashLine));
  boundText_ = new QCPItemText(this);
  boundText_->setColor(QColor(200, 40, 40));
  boundText_->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
  boundText_->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
  boundText_->position->setTypeY(QCPItemPosition::ptPlotCoords);
  // The plot's height is known after layout: resize the range to fit the label.
  connect(this, &QCustomPlot::afterLayout, this, [this] {
    if (updateValueRange()) replot(QCustomPlot::rpQueuedReplot);
  });
  xAxis->setLabel(tr("head"));
  auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
  ticker->setTickStep(1.0);
  ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  xAxis->setTicker(ticker);
  xAxis->grid()->setVisible(false);
  setMouseTracking(true);
  setMinimumHeight(170);
  followPalette(this);  // light or dark with the system
}

void MetricsBarChart::setBars(const std::vector<double>& values, const std::vector<bool>& flagged,
                              const QString& yLabel, double bound, const QString& boundLabel) {
  values_ = values;
  flagged_ = flagged;
  flagged_.resize(values_.size(), false);
  bound_ = bound;
  yAxis->setLabel(yLabel);
  boundText_->setText(boundLabel);
  rebuild();
}

void MetricsBarChart::setSelectedHead(int head) {
  selected_ = head;
  rebuild();
}

void MetricsBarChart::rebuild() {
  selectedBars_->setPen(QPen(palette().color(QPalette::Text), 2.5));  // visible on light and dark
  // Each series holds only its own heads: a zero-height bar would still draw its outline.
  QVector<double> kn, vn, kf, vf, ks, vs;
  for (size_t h = 0; h < values_.size(); ++h) {
    const double v = std::isfinite(values_[h]) ? values_[h] : 0.0;
    const double key = static_cast<double>(h + 1);
    (flagged_[h] ? kf : kn) << key;
    (flagged_[h] ? vf : vn) << v;
    if (static_cast<int>(h) == selected_) {
      ks << key;
      vs << v;
    }
  }
  normal_->setData(kn, vn, true);
  flaggedBars_->setData(kf, vf, true);
  selectedBars_->setData(ks, vs, true);
  const bool showBound = bound_ >= 0.0;
  boundLine_->setVisible(showBound);
  boundText_->setVisible(showBound);
  if (showBound) {
    boundLine_->point1->setCoords(0, bound_);
    boundLine_->point2->setCoords(1, bound_);
    boundText_->position->setCoords(0.98, bound_);
  }
  xAxis->setRange(0.4, static_cast<double>(values_.size()) + 0.6);
  updateValueRange();
  replot(QCustomPlot::rpQueuedReplot);
}

bool MetricsBarChart::updateValueRange() {
  double top = 0.0, bottom = 0.0;
  for (double v : values_)
    if (std::isfinite(v)) {
      top = std::max(top, v);
      bottom = std::min(bottom, v);
    }
  const bool showBound = bound_ >= 0.0;
  if (showBound) top = std::max(top, bound_);
  double hi = top > bottom ? top * 1.12 : 1.0;
  if (showBound && top > bottom) {
    // The label sits on the line: the share of the plot's height above the
    // line must hold one line of text, whatever the dock's height.
    const double textPx = QFontMetricsF(boundText_->font()).height() + 4.0;
    const double f = std::min(0.5, textPx / std::max(40, axisRect()->height()));
    hi = std::max(hi, (bound_ - f * bottom) / (1.0 - f));
  }
  const QCPRange before = yAxis->range();
  yAxis->setRange(bottom, hi);
  return std::abs(before.lower - bottom) > 1e-12 || std::abs(before.upper - hi) > 1e-9 * std::max(1.0, hi);
}

int MetricsBarChart::headAt(const QPoint& pos) const {
  if (!axisRect()->rect().contains(pos)) return -1;
  const double x = xAxis->pixelToCoord(pos.x());
  const int h = static_cast<int>(std::lround(x)) - 1;
  if (h < 0 || h >= static_cast<int>(values_.size()) || std::abs(x - (h + 1)) > 0.35) return -1;
  return h;
}

void MetricsBarChart::mouseMoveEvent(QMouseEvent* event) {
  QCustomPlot::mouseMoveEvent(event);
  const int h = headAt(event->pos());
  if (h >= 0 && toolTip_) {
    QToolTip::showText(event->globalPosition().toPoint(), toolTip_(h), this);
  } else {
    QToolTip::hideText();
  }
}

void MetricsBarChart::mousePressEvent(QMouseEvent* event) {
  QCustomPlot::mousePressEvent(event);
  if (const int h = headAt(event->pos()); h >= 0 && event->button() == Qt::LeftButton) emit headClicked(h);
}

void showHeadMeasure(MetricsBarChart& chart, const attn::Analysis& an, const attn::HeadMeasure& m, int selected) {
  std::vector<double> values;
  std::vector<bool> flagged;
  for (const auto& h : an.heads) {
    values.push_back(m.value(h));
    flagged.push_back(h.collapse.nearUniform || h.collapse.nearOneHot);
  }
  const QString unit = coreText(attn::unitName(an.options.unit));
  chart.setSelectedHead(selected);
  chart.setBars(values, flagged, measureAxisLabel(m, an.options.unit), m.entropyBound ? an.uniformBound : -1.0,
                MetricsBarChart::tr("uniform: log %1 = %2 %3").arg(an.nk).arg(an.uniformBound, 0, 'f', 3).arg(unit));
}

}  // namespace attn::ui
