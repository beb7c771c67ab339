#include "attn_ui/vision/vision_overlay_view.h"

#include <QMouseEvent>
#include <QPainter>

#include "attn_ui/theme/colormaps.h"

namespace attn::ui {

QRectF paintOverlayFigure(QPainter& p, const QRect& target, const PatchOverlay& o, const QString& caption,
                          double maxValue) {
  p.save();
  const QColor text = p.pen().color();
  const QFontMetrics fm(p.font());
  const int captionH = caption.isEmpty() ? 0 : fm.height() + 6;
  const int barH = o.valid() ? fm.height() + 16 : 0;
  if (!caption.isEmpty())
    p.drawText(QRect(target.left(), target.top() + 2, target.width(), captionH), Qt::AlignCenter, caption);
  const QRectF area = QRectF(target).adjusted(4, 4 + captionH, -4, -4 - barH);
  const QRectF img = paintPatchOverlay(p, area, o);
  if (o.valid() && !img.isEmpty()) {
    QCPColorGradient grad = colormapGradient(o.colormap);  // color() is not const
    const QRectF bar(img.left() + img.width() * 0.15, img.bottom() + 6, img.width() * 0.7, 8);
    for (int i = 0; i < 64; ++i)
      p.fillRect(
          QRectF(bar.left() + bar.width() * i / 64.0, bar.top(), bar.width() / 64.0 + 0.5, bar.height()),
          QColor::fromRgb(grad.color((i + 0.5) / 64.0, QCPRange(0, 1))));
    p.setPen(QPen(QColor(Qt::gray), 1));
    p.drawRect(bar);
    p.setPen(text);
    const QRectF labels(bar.left() - 40, bar.bottom() + 1, bar.width() + 80, fm.height() + 2);
    p.drawText(labels, Qt::AlignLeft | Qt::AlignTop, QStringLiteral("0"));
    p.drawText(labels, Qt::AlignRight | Qt::AlignTop, QString::number(maxValue, 'g', 3));
  }
  p.restore();
  return img;
}

VisionOverlayView::VisionOverlayView(QWidget* parent) : QWidget(parent) {
  setObjectName("VisionOverlayView");
  setCursor(Qt::PointingHandCursor);
}

void VisionOverlayView::setOverlay(PatchOverlay overlay, const QString& caption, double maxValue) {
  overlay_ = std::move(overlay);
  caption_ = caption;
  maxValue_ = maxValue;
  update();
}

int VisionOverlayView::patchAt(const QPointF& pos) const {
  if (!overlay_.valid()) return -1;
  return patchAtPoint(imageRect_, static_cast<int>(overlay_.levels.rows()),
                      static_cast<int>(overlay_.levels.cols()), pos);
}

void VisionOverlayView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setPen(palette().color(QPalette::WindowText));
  imageRect_ = paintOverlayFigure(p, rect(), overlay_, caption_, maxValue_);
}

void VisionOverlayView::mousePressEvent(QMouseEvent* event) {
  const int k = patchAt(event->position());
  if (k >= 0) emit patchClicked(k);
}

}  // namespace attn::ui
