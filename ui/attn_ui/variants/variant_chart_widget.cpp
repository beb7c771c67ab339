#include "attn_ui/variants/variant_chart_widget.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

namespace attn::ui {

VariantChartWidget::VariantChartWidget(QWidget* parent) : QWidget(parent) { setMinimumSize(220, 120); }

void VariantChartWidget::setSeries(const QString& title, const QString& xLabel, const QString& yLabel,
                                   std::vector<std::vector<double>> series, QStringList names, int xStart) {
  title_ = title;
  xLabel_ = xLabel;
  yLabel_ = yLabel;
  series_ = std::move(series);
  names_ = std::move(names);
  xStart_ = xStart;
  update();
}

void VariantChartWidget::clear() {
  series_.clear();
  names_.clear();
  update();
}

QColor VariantChartWidget::seriesColour(int i) {
  static const QColor colours[] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40},
                                   {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127}};
  return colours[i % 8];
}

void VariantChartWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  paintChart(p, rect(), false);
}

void VariantChartWidget::paintChart(QPainter& p, const QRect& target, bool figure) const {
  if (series_.empty()) return;
  const QColor text = figure ? QColor(Qt::black) : palette().text().color();
  p.setRenderHint(QPainter::Antialiasing);
  QFont font = p.font();
  font.setPixelSize(10);
  p.setFont(font);
  size_t count = 0;
  double lo = 0, hi = 0;
  for (const auto& s : series_) {
    count = std::max(count, s.size());
    for (double v : s)
      if (std::isfinite(v)) hi = std::max(hi, v), lo = std::min(lo, v);
  }
  if (!(hi > lo)) hi = lo + 1;
  // The left margin holds the rotated axis title (18 px) and the wider of the two value labels.
  const QString hiText = QString::number(hi, 'g', 3), loText = QString::number(lo, 'g', 3);
  const QFontMetrics fm(font);
  const int valueWidth = std::max(fm.horizontalAdvance(hiText), fm.horizontalAdvance(loText));
  const int left = std::max(44, 18 + valueWidth + 6);
  const QRectF plot(target.left() + left, target.top() + 20, target.width() - left - 110, target.height() - 20 - 30);
  if (plot.width() < 20 || plot.height() < 20) return;
  const double xs = count > 1 ? plot.width() / double(count - 1) : plot.width();
  auto pt = [&](size_t x, double v) { return QPointF(plot.left() + x * xs, plot.bottom() - (v - lo) / (hi - lo) * plot.height()); };
  p.setPen(text);
  QFont bold = font;
  bold.setBold(true);
  bold.setPixelSize(11);
  p.setFont(bold);
  p.drawText(QRectF(target.left(), target.top(), target.width(), 18), Qt::AlignCenter, title_);
  p.setFont(font);
  p.drawRect(plot);
  p.drawText(QRectF(plot.left(), plot.bottom() + 14, plot.width(), 14), Qt::AlignCenter, xLabel_);
  p.drawText(QRectF(target.left(), plot.top() - 2, left - 4, 12), Qt::AlignRight, hiText);
  p.drawText(QRectF(target.left(), plot.bottom() - 10, left - 4, 12), Qt::AlignRight, loText);
  p.save();
  p.translate(target.left() + 8, plot.center().y());
  p.rotate(-90);
  p.drawText(QRectF(-plot.height() / 2, -8, plot.height(), 14), Qt::AlignCenter, yLabel_);
  p.restore();
  const size_t step = std::max<size_t>(1, count / 10);
  for (size_t x = 0; x < count; x += step)
    p.drawText(QRectF(plot.left() + x * xs - 15, plot.bottom() + 1, 30, 12), Qt::AlignCenter,
               QString::number(static_cast<long long>(x) + xStart_));
  for (size_t s = 0; s < series_.size(); ++s) {
    const QColor c = seriesColour(static_cast<int>(s));
    p.setPen(QPen(c, 2));
    const auto& v = series_[s];
    for (size_t x = 1; x < v.size(); ++x) p.drawLine(pt(x - 1, v[x - 1]), pt(x, v[x]));
    p.setBrush(c);
    for (size_t x = 0; x < v.size(); ++x) p.drawEllipse(pt(x, v[x]), 2.5, 2.5);
    p.setBrush(Qt::NoBrush);
    const QRectF legend(plot.right() + 10, plot.top() + 14 * static_cast<double>(s), 100, 13);
    p.fillRect(QRectF(legend.left(), legend.top() + 4, 10, 4), c);
    p.setPen(text);
    p.drawText(legend.adjusted(14, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
               s < static_cast<size_t>(names_.size()) ? names_[static_cast<int>(s)] : QString());
  }
}

}  // namespace attn::ui
