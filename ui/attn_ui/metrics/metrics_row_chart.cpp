#include "attn_ui/metrics/metrics_row_chart.h"

#include "attn_ui/theme/plot_theme.h"

#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace attn::ui {
namespace {
constexpr int kMaxLabelledRows = 32;  // beyond this, token names overlap: plain row numbers
}

MetricsRowChart::MetricsRowChart(QWidget* parent) : QCustomPlot(parent) {
  plotLayout()->insertRow(0);
  title_ = new QCPTextElement(this, QString(), QFont(font().family(), 9, QFont::Bold));
  plotLayout()->addElement(0, 0, title_);
  bound_ = addGraph();
  bound_->setPen(QPen(QColor(200, 40, 40), 1.2, Qt::DashLine));
  bound_->setLineStyle(QCPGraph::lsStepCenter);
  bound_->setName(tr("uniform bound log(unmasked keys)"));
  curve_ = addGraph();
  curve_->setPen(QPen(QColor(30, 60, 130), 1.8));
  curve_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
  xAxis->setLabel(tr("query token"));
  setMouseTracking(true);
  setMinimumHeight(170);
  followPalette(this);  // light or dark with the system
}

void MetricsRowChart::setCurve(const std::vector<double>& values, const std::vector<double>& bound,
                               const QStringList& rowLabels, const QString& title, const QString& yLabel) {
  values_ = values;
  labels_ = rowLabels;
  title_->setText(title);
  yAxis->setLabel(yLabel);
  QVector<double> x, y, b;
  double top = 0.0, bottom = 0.0;
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = std::isfinite(values[i]) ? values[i] : 0.0;
    x << static_cast<double>(i);
    y << v;
    top = std::max(top, v);
    bottom = std::min(bottom, v);
    if (i < bound.size()) {
      b << bound[i];
      top = std::max(top, bound[i]);
    }
  }
  curve_->setData(x, y, true);
  bound_->setData(b.isEmpty() ? QVector<double>{} : x.mid(0, b.size()), b, true);
  bound_->setVisible(!b.isEmpty());
  if (!values.empty() && static_cast<int>(values.size()) <= kMaxLabelledRows &&
      rowLabels.size() == static_cast<int>(values.size())) {
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i < rowLabels.size(); ++i) ticker->addTick(i, rowLabels[i]);
    xAxis->setTicker(ticker);
    xAxis->setTickLabelRotation(values.size() > 8 ? 60 : 0);
  } else {
    xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    xAxis->setTickLabelRotation(0);
  }
  xAxis->setRange(-0.5, std::max<double>(0.5, static_cast<double>(values.size()) - 0.5));
  yAxis->setRange(bottom, top > bottom ? top * 1.1 : 1.0);
  replot(QCustomPlot::rpQueuedReplot);
}

void MetricsRowChart::mouseMoveEvent(QMouseEvent* event) {
  QCustomPlot::mouseMoveEvent(event);
  const int i = static_cast<int>(std::lround(xAxis->pixelToCoord(event->pos().x())));
  if (!axisRect()->rect().contains(event->pos()) || i < 0 || i >= static_cast<int>(values_.size())) {
    QToolTip::hideText();
    return;
  }
  const QString token = i < labels_.size() ? labels_[i] : QString();
  QToolTip::showText(event->globalPosition().toPoint(),
                     tr("row %1 %2: %3").arg(i).arg(token).arg(values_[static_cast<size_t>(i)], 0, 'g', 4), this);
}

}  // namespace attn::ui
