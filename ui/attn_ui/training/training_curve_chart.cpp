#include "attn_ui/training/training_curve_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attn_ui/theme/plot_theme.h"

namespace attn::ui {

TrainingCurveChart::TrainingCurveChart(const QString& title, const QString& yLabel, QWidget* parent)
    : QCustomPlot(parent), referenceValue_(std::numeric_limits<double>::quiet_NaN()) {
  setMinimumSize(220, 150);
  plotLayout()->insertRow(0);
  title_ = new QCPTextElement(this, title, QFont(font().family(), 9, QFont::Bold));
  plotLayout()->addElement(0, 0, title_);
  xAxis->setLabel(tr("step"));
  yAxis->setLabel(yLabel);
  legend->setVisible(true);
  QFont lf = font();
  lf.setPointSizeF(std::max(6.0, lf.pointSizeF() - 1.5));
  legend->setFont(lf);
  legend->setBrush(QColor(255, 255, 255, 170));
  axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);

  reference_ = new QCPItemStraightLine(this);
  reference_->setPen(QPen(QColor(200, 40, 40), 1.2, Qt::DashLine));
  reference_->setVisible(false);
  referenceText_ = new QCPItemText(this);
  referenceText_->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
  referenceText_->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
  referenceText_->position->setTypeY(QCPItemPosition::ptPlotCoords);
  referenceText_->setColor(QColor(200, 40, 40));
  referenceText_->setVisible(false);
  event_ = new QCPItemStraightLine(this);
  event_->setPen(QPen(QColor(0x2c, 0xa0, 0x2c), 1.4, Qt::DotLine));
  event_->setVisible(false);
  eventText_ = new QCPItemText(this);
  eventText_->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
  eventText_->position->setTypeX(QCPItemPosition::ptPlotCoords);
  eventText_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  eventText_->setColor(QColor(0x1d, 0x7a, 0x1d));
  eventText_->setVisible(false);
  marker_ = new QCPItemStraightLine(this);
  marker_->setPen(QPen(QColor(120, 120, 120), 1.0));
  marker_->setVisible(false);
  followPalette(this);
}

void TrainingCurveChart::setSeries(const QVector<CurveSeries>& series) {
  clearGraphs();
  for (const CurveSeries& s : series) {
    QCPGraph* g = addGraph();
    g->setName(s.name);
    g->setPen(QPen(s.color, 1.6, s.dashed ? Qt::DashLine : Qt::SolidLine));
    QVector<double> v = s.values;
    if (log_)
      for (double& x : v) x = std::max(x, 1e-12);  // a log axis cannot show 0
    g->setData(s.steps, v, true);
  }
  legend->setVisible(graphCount() > 1);
  rescale();
  replot(QCustomPlot::rpQueuedReplot);
}

void TrainingCurveChart::setReference(double value, const QString& label) {
  referenceValue_ = value;
  const bool on = std::isfinite(value);
  reference_->setVisible(on);
  referenceText_->setVisible(on);
  if (on) {
    reference_->point1->setCoords(0, value);
    reference_->point2->setCoords(1, value);
    referenceText_->setText(label);
    referenceText_->position->setCoords(0.02, value);
  }
  rescale();
  replot(QCustomPlot::rpQueuedReplot);
}

void TrainingCurveChart::setMarker(double step) {
  markerStep_ = step;
  marker_->setVisible(step >= 0);
  marker_->point1->setCoords(step, 0);
  marker_->point2->setCoords(step, 1);
  replot(QCustomPlot::rpQueuedReplot);
}

void TrainingCurveChart::setEvent(double step, const QString& label) {
  eventStep_ = step;
  const bool on = step >= 0;
  event_->setVisible(on);
  eventText_->setVisible(on);
  if (on) {
    event_->point1->setCoords(step, 0);
    event_->point2->setCoords(step, 1);
    eventText_->setText(label);
    eventText_->position->setCoords(step, 0.04);
  }
  replot(QCustomPlot::rpQueuedReplot);
}

QString TrainingCurveChart::eventLabel() const { return eventText_->text(); }

void TrainingCurveChart::setLogScale(bool on) {
  log_ = on;
  yAxis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  if (on)
    yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  else
    yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
}

void TrainingCurveChart::setValueRange(double lo, double hi) {
  fixedLo_ = lo;
  fixedHi_ = hi;
  rescale();
}

QVector<double> TrainingCurveChart::seriesSteps(int i) const {
  QVector<double> out;
  for (auto it = graph(i)->data()->constBegin(); it != graph(i)->data()->constEnd(); ++it) out << it->key;
  return out;
}

QVector<double> TrainingCurveChart::seriesValues(int i) const {
  QVector<double> out;
  for (auto it = graph(i)->data()->constBegin(); it != graph(i)->data()->constEnd(); ++it) out << it->value;
  return out;
}

QString TrainingCurveChart::seriesName(int i) const { return graph(i)->name(); }

void TrainingCurveChart::rescale() {
  double xMax = 1, lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (int i = 0; i < graphCount(); ++i)
    for (auto it = graph(i)->data()->constBegin(); it != graph(i)->data()->constEnd(); ++it) {
      xMax = std::max(xMax, it->key);
      if (std::isfinite(it->value)) {
        lo = std::min(lo, it->value);
        hi = std::max(hi, it->value);
      }
    }
  xAxis->setRange(0, xMax);
  if (fixedLo_ < fixedHi_) {
    yAxis->setRange(fixedLo_, fixedHi_);
    return;
  }
  if (std::isfinite(referenceValue_)) {
    lo = std::min(lo, referenceValue_);
    hi = std::max(hi, referenceValue_);
  }
  if (!(lo <= hi)) {
    lo = log_ ? 1e-3 : 0;
    hi = 1;
  }
  if (log_) {
    lo = std::max(lo, 1e-12);
    yAxis->setRange(lo / 1.5, std::max(hi * 1.5, lo * 10));
  } else {
    const double pad = hi > lo ? 0.08 * (hi - lo) : 0.5;
    // Room above the reference line for its label (drawn on top of the line).
    const double top = std::isfinite(referenceValue_) ? std::max(pad, 0.2 * (hi - std::min(0.0, lo))) : pad;
    yAxis->setRange(std::min(0.0, lo - pad), hi + top);
  }
}

}  // namespace attn::ui
