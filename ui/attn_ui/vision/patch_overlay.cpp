#include "attn_ui/vision/patch_overlay.h"

#include <QPainter>
#include <algorithm>

#include "attn_ui/theme/colormaps.h"

namespace attn::ui {

QRectF fittedImageRect(const QRectF& area, const QSize& image) {
  if (image.isEmpty() || area.width() <= 0 || area.height() <= 0) return {};
  const double scale = std::min(area.width() / image.width(), area.height() / image.height());
  const double w = image.width() * scale, h = image.height() * scale;
  return {area.left() + (area.width() - w) / 2, area.top() + (area.height() - h) / 2, w, h};
}

namespace {

// One pixel per patch, drawn scaled without smoothing so each patch stays a square.
QImage heatLayer(const PatchOverlay& o) {
  const auto rows = static_cast<int>(o.levels.rows()), cols = static_cast<int>(o.levels.cols());
  QImage heat(cols, rows, QImage::Format_ARGB32);
  QCPColorGradient grad = colormapGradient(o.colormap);  // color() is not const
  const bool masked = o.mask.rows() == rows && o.mask.cols() == cols;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      QColor colour =
          QColor::fromRgb(grad.color(std::clamp<double>(o.levels(r, c), 0.0, 1.0), QCPRange(0, 1)));
      if (masked && o.mask(r, c) == 0.0f) colour = QColor(0, 0, 0);  // outside the mask: dimmed
      colour.setAlphaF(
          std::clamp(masked && o.mask(r, c) == 0.0f ? 0.25 + 0.6 * o.opacity : o.opacity, 0.0, 1.0));
      heat.setPixelColor(c, r, colour);
    }
  return heat;
}

}  // namespace

QRectF paintPatchOverlay(QPainter& p, const QRectF& target, const PatchOverlay& o) {
  const QRectF img = fittedImageRect(target, o.image.size());
  if (img.isEmpty()) return img;
  p.save();
  p.setRenderHint(QPainter::SmoothPixmapTransform, true);
  p.drawImage(img, o.image);
  if (o.valid()) {
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    p.drawImage(img, heatLayer(o));
    const auto rows = static_cast<int>(o.levels.rows()), cols = static_cast<int>(o.levels.cols());
    if (o.queryPatch >= 0 && o.queryPatch < rows * cols) {
      const double cw = img.width() / cols, ch = img.height() / rows;
      const QRectF q(img.left() + (o.queryPatch % cols) * cw, img.top() + (o.queryPatch / cols) * ch, cw, ch);
      p.setRenderHint(QPainter::Antialiasing, false);
      p.setBrush(Qt::NoBrush);
      p.setPen(QPen(Qt::white, 2));
      p.drawRect(q.adjusted(1, 1, -1, -1));
      p.setPen(QPen(Qt::black, 1, Qt::DashLine));
      p.drawRect(q.adjusted(1, 1, -1, -1));
    }
  }
  p.restore();
  return img;
}

int patchAtPoint(const QRectF& img, int rows, int cols, const QPointF& pos) {
  if (rows <= 0 || cols <= 0 || !img.contains(pos)) return -1;
  const int c = std::clamp(static_cast<int>((pos.x() - img.left()) * cols / img.width()), 0, cols - 1);
  const int r = std::clamp(static_cast<int>((pos.y() - img.top()) * rows / img.height()), 0, rows - 1);
  return r * cols + c;
}

}  // namespace attn::ui
