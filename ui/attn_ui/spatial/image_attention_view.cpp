#include "attn_ui/spatial/image_attention_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

#include "attn_ui/theme/colormaps.h"

namespace attn::ui {

void paintImageAttention(QPainter& p, const QRect& target, const ImageAttentionFigure& f, QRectF* imageRect) {
  p.save();
  const QColor text = p.pen().color();
  p.setRenderHint(QPainter::Antialiasing, false);
  const QFontMetrics fm(p.font());
  const int titleH = f.title.isEmpty() ? 0 : fm.height() + 6;
  const int barH = fm.height() + 16;
  const QRect area = target.adjusted(6, 6 + titleH, -6, -6 - barH);
  if (!f.title.isEmpty())
    p.drawText(QRect(target.left(), target.top() + 4, target.width(), titleH), Qt::AlignHCenter | Qt::AlignVCenter,
               f.title);
  if (!f.valid() || area.width() < 4 || area.height() < 4) {
    p.restore();
    return;
  }
  const double usedW = f.patch * f.cols, usedH = f.patch * f.rows;
  const double scale = std::min(area.width() / usedW, area.height() / usedH);
  const QRectF img(area.left() + (area.width() - usedW * scale) / 2, area.top() + (area.height() - usedH * scale) / 2,
                   usedW * scale, usedH * scale);
  if (imageRect) *imageRect = img;
  p.setRenderHint(QPainter::SmoothPixmapTransform, true);
  p.drawImage(img, f.image, QRectF(0, 0, usedW, usedH));

  const int n = f.rows * f.cols;
  const int q = std::clamp(f.query, 0, n - 1);
  const float maxW = std::max(f.weights.row(q).maxCoeff(), 1e-12f);
  QCPColorGradient grad = colormapGradient(f.colormap);
  const double cell = f.patch * scale;
  for (int k = 0; k < n; ++k) {
    const QRectF r(img.left() + (k % f.cols) * cell, img.top() + (k / f.cols) * cell, cell, cell);
    const double w = f.weights(q, k) / maxW;
    if (f.weights(q, k) == 0.0f) {
      p.fillRect(r, QColor(0, 0, 0, 150));  // masked (or no weight): darkened
      continue;
    }
    QColor c = QColor::fromRgb(grad.color(w, QCPRange(0, 1)));
    c.setAlphaF(0.15 + 0.6 * w);
    p.fillRect(r, c);
  }
  p.setPen(QPen(QColor(255, 255, 255, 60), 1));
  for (int c = 1; c < f.cols; ++c) p.drawLine(QPointF(img.left() + c * cell, img.top()), QPointF(img.left() + c * cell, img.bottom()));
  for (int r = 1; r < f.rows; ++r) p.drawLine(QPointF(img.left(), img.top() + r * cell), QPointF(img.right(), img.top() + r * cell));
  const QRectF qr(img.left() + (q % f.cols) * cell, img.top() + (q / f.cols) * cell, cell, cell);
  p.setPen(QPen(Qt::white, 3));
  p.drawRect(qr.adjusted(1, 1, -1, -1));
  p.setPen(QPen(Qt::black, 1.5, Qt::DashLine));
  p.drawRect(qr.adjusted(1, 1, -1, -1));

  // Colour bar: 0 .. the row's largest weight.
  const QRectF bar(target.left() + target.width() * 0.2, target.bottom() - barH + 2, target.width() * 0.6, 8);
  for (int i = 0; i < 64; ++i) {
    const QRectF s(bar.left() + bar.width() * i / 64.0, bar.top(), bar.width() / 64.0 + 0.5, bar.height());
    p.fillRect(s, QColor::fromRgb(grad.color((i + 0.5) / 64.0, QCPRange(0, 1))));
  }
  p.setPen(QPen(QColor(Qt::gray), 1));
  p.drawRect(bar);
  p.setPen(text);
  const QRectF labels(bar.left(), bar.bottom() + 1, bar.width(), fm.height() + 2);
  p.drawText(labels, Qt::AlignLeft | Qt::AlignTop, QStringLiteral("0"));
  p.drawText(labels, Qt::AlignRight | Qt::AlignTop, QString::number(maxW, 'g', 3));
  p.restore();
}

ImageAttentionView::ImageAttentionView(QWidget* parent) : QWidget(parent) {
  setMinimumSize(160, 160);
  setCursor(Qt::PointingHandCursor);
}

void ImageAttentionView::setFigure(ImageAttentionFigure figure) {
  figure_ = std::move(figure);
  update();
}

int ImageAttentionView::patchAt(const QPointF& pos) const {
  if (!figure_.valid() || !imageRect_.contains(pos)) return -1;
  const double cell = imageRect_.width() / figure_.cols;
  const int c = std::clamp(static_cast<int>((pos.x() - imageRect_.left()) / cell), 0, figure_.cols - 1);
  const int r = std::clamp(static_cast<int>((pos.y() - imageRect_.top()) / cell), 0, figure_.rows - 1);
  return r * figure_.cols + c;
}

void ImageAttentionView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setPen(palette().color(QPalette::WindowText));
  paintImageAttention(p, rect(), figure_, &imageRect_);
}

void ImageAttentionView::mousePressEvent(QMouseEvent* event) {
  const int k = patchAt(event->position());
  if (k >= 0) emit patchClicked(k);
}

}  // namespace attn::ui
