#include "attn_ui/variants/variant_maps_widget.h"

#include <QPainter>
#include <cmath>

#include "attn_ui/theme/colormaps.h"

namespace attn::ui {

VariantMapsWidget::VariantMapsWidget(QWidget* parent) : QWidget(parent) { setMinimumSize(320, 220); }

void VariantMapsWidget::setMaps(std::vector<attn::variants::VariantMap> maps) {
  maps_ = std::move(maps);
  update();
}

void VariantMapsWidget::setColormap(const QString& name) {
  colormap_ = name;
  update();
}

void VariantMapsWidget::setHighlightRow(int row) {
  highlightRow_ = row;
  update();
}

void VariantMapsWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  paintMaps(p, rect(), false);
}

void VariantMapsWidget::paintMaps(QPainter& p, const QRect& target, bool figure) const {
  const int n = static_cast<int>(maps_.size());
  if (n == 0) return;
  const QColor text = figure ? QColor(Qt::black) : palette().text().color();
  QCPColorGradient gradient = colormapGradient(colormap_);
  QFont font = p.font();
  const int slotW = target.width() / n;
  for (int m = 0; m < n; ++m) {
    const auto& map = maps_[static_cast<size_t>(m)];
    const int rows = static_cast<int>(map.values.rows()), cols = static_cast<int>(map.values.cols());
    if (rows == 0 || cols == 0) continue;
    const QRect whole(target.left() + m * slotW, target.top(), slotW, target.height());
    // Labels take a margin that shrinks with the cell size; too small cells drop them.
    const int titleH = 22, barW = 14;
    const int avail = std::min(whole.width() - 20 - barW, whole.height() - titleH - 10);
    const double guess = std::max(1.0, avail / (std::max(rows, cols) + 5.0));
    const bool labels = guess >= 7.0;
    const int labelPx = labels ? static_cast<int>(std::clamp(guess * 0.75, 7.0, 11.0)) : 0;
    font.setPixelSize(std::max(labelPx, 9));
    p.setFont(font);
    const int margin = labels ? static_cast<int>(p.fontMetrics().averageCharWidth() * 6) : 4;
    const double cell = std::max(1.0, std::min((whole.width() - margin - barW - 16) / double(cols),
                                               (whole.height() - titleH - margin - 6) / double(rows)));
    // A map narrower than its slot (one square map in a wide panel) is centred in it.
    const int used = margin + static_cast<int>(cols * cell) + 8 + barW + 24;
    const int shift = std::max(0, (whole.width() - used) / 2);
    const QRect slot = whole.adjusted(shift, 0, -shift, 0);
    const QPointF origin(slot.left() + margin, slot.top() + titleH + margin);
    // Title.
    QFont titleFont = font;
    titleFont.setPixelSize(12);
    titleFont.setBold(true);
    p.setFont(titleFont);
    p.setPen(text);
    p.drawText(QRectF(whole.left(), whole.top(), whole.width(), titleH), Qt::AlignCenter | Qt::TextSingleLine,
               p.fontMetrics().elidedText(QString::fromStdString(map.title), Qt::ElideRight, whole.width() - 4));
    p.setFont(font);
    // Cells.
    double lo = 0.0, hi = map.values.maxCoeff();
    if (!(hi > lo)) hi = lo + 1.0;
    const QCPRange range(lo, hi);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        const QRectF r(origin.x() + j * cell, origin.y() + i * cell, cell + 0.5, cell + 0.5);
        p.fillRect(r, QColor::fromRgb(gradient.color(map.values(i, j), range)));
      }
    // Memory separator and label colour.
    if (map.memoryColumns > 0) {
      const double x = origin.x() + map.memoryColumns * cell;
      p.setPen(QPen(memoryColour(), 2.5));
      p.drawLine(QPointF(x, origin.y() - 4), QPointF(x, origin.y() + rows * cell + 4));
      QFont small = font;
      small.setPixelSize(10);
      p.setFont(small);
      p.drawText(QRectF(origin.x(), origin.y() + rows * cell + 2, map.memoryColumns * cell, 14),
                 Qt::AlignCenter | Qt::TextDontClip, tr("memory"));
      p.setFont(font);
    }
    if (highlightRow_ >= 0 && highlightRow_ < rows) {
      p.setPen(QPen(QColor(220, 30, 30), 2));
      p.setBrush(Qt::NoBrush);
      p.drawRect(QRectF(origin.x(), origin.y() + highlightRow_ * cell, cols * cell, cell));
    }
    if (labels) {
      for (int i = 0; i < rows && i < static_cast<int>(map.rowLabels.size()); ++i) {
        p.setPen(text);
        const QString s = p.fontMetrics().elidedText(QString::fromStdString(map.rowLabels[static_cast<size_t>(i)]),
                                                      Qt::ElideRight, margin - 3);
        p.drawText(QRectF(slot.left(), origin.y() + i * cell, margin - 3, cell), Qt::AlignRight | Qt::AlignVCenter, s);
      }
      for (int j = 0; j < cols && j < static_cast<int>(map.colLabels.size()); ++j) {
        p.setPen(j < map.memoryColumns ? memoryColour() : text);
        const QString s = p.fontMetrics().elidedText(QString::fromStdString(map.colLabels[static_cast<size_t>(j)]),
                                                      Qt::ElideRight, margin - 3);
        p.save();
        p.translate(origin.x() + j * cell + cell / 2, origin.y() - 3);
        p.rotate(-90);
        p.drawText(QRectF(0, -cell / 2, margin - 3, cell), Qt::AlignLeft | Qt::AlignVCenter, s);
        p.restore();
      }
    }
    // Colour bar with its range.
    const QRectF bar(origin.x() + cols * cell + 8, origin.y(), barW * 0.6, rows * cell);
    for (int y = 0; y < static_cast<int>(bar.height()); ++y) {
      const double v = hi - (hi - lo) * y / std::max(1.0, bar.height() - 1);
      p.fillRect(QRectF(bar.left(), bar.top() + y, bar.width(), 1.5), QColor::fromRgb(gradient.color(v, range)));
    }
    QFont small = font;
    small.setPixelSize(9);
    p.setFont(small);
    p.setPen(text);
    p.drawText(QRectF(bar.left() - 10, bar.top() - 12, 40, 11), Qt::AlignLeft, QString::number(hi, 'g', 2));
    p.drawText(QRectF(bar.left() - 10, bar.bottom() + 1, 40, 11), Qt::AlignLeft, QString::number(lo, 'g', 2));
    p.setFont(font);
  }
}

}  // namespace attn::ui
