#include "attn_ui/vision/vision_head_grid.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

#include "attn_ui/vision/patch_overlay.h"

namespace attn::ui {
namespace {
constexpr int kGridLabelW = 30, kGridHeaderH = 18, kTileGap = 2;
}

VisionHeadGrid::VisionHeadGrid(QWidget* parent) : QWidget(parent) {
  setObjectName("VisionHeadGrid");
  setCursor(Qt::PointingHandCursor);
}

void VisionHeadGrid::setMaps(QImage image, std::shared_ptr<const attn::vision::QueryMaps> maps, bool masks,
                             double opacity) {
  image_ = std::move(image);
  maps_ = std::move(maps);
  masks_ = masks;
  opacity_ = opacity;
  update();
}

void VisionHeadGrid::setSelected(int layer, int head) {
  selLayer_ = layer;
  selHead_ = head;
  update();
}

double VisionHeadGrid::tileSide() const {
  if (!maps_ || maps_->layers <= 0) return 0.0;
  const double w = (width() - kGridLabelW - 4.0) / (maps_->heads + 1) - kTileGap;
  const double h = (height() - kGridHeaderH - 4.0) / maps_->layers - kTileGap;
  return std::max(4.0, std::min(w, h));
}

QRectF VisionHeadGrid::tileRect(int layer, int head) const {
  const double s = tileSide();
  if (s <= 0) return {};
  // The rollout column sits apart from the heads by an extra gap.
  const double extra = head >= maps_->heads ? 3.0 * kTileGap : 0.0;
  return {kGridLabelW + head * (s + kTileGap) + extra, kGridHeaderH + layer * (s + kTileGap), s, s};
}

std::pair<int, int> VisionHeadGrid::tileAt(const QPointF& pos) const {
  if (!maps_) return {-1, -1};
  for (int l = 0; l < maps_->layers; ++l)
    for (int h = 0; h <= maps_->heads; ++h)
      if (tileRect(l, h).contains(pos)) return {l, h};
  return {-1, -1};
}

void VisionHeadGrid::paintEvent(QPaintEvent*) {
  QPainter p(this);
  if (!maps_ || image_.isNull()) return;
  const QColor text = palette().color(QPalette::WindowText);
  p.setPen(text);
  for (int h = 0; h <= maps_->heads; ++h) {
    const QRectF t = tileRect(0, h);
    const QString label = h < maps_->heads ? tr("H%1").arg(h + 1) : tr("Roll.");
    p.drawText(QRectF(t.left() - 6, 0, t.width() + 12, kGridHeaderH), Qt::AlignCenter, label);
  }
  for (int l = 0; l < maps_->layers; ++l) {
    const QRectF t = tileRect(l, 0);
    p.setPen(text);
    p.drawText(QRectF(0, t.top(), kGridLabelW - 3, t.height()), Qt::AlignRight | Qt::AlignVCenter,
               tr("L%1").arg(l + 1));
    for (int h = 0; h <= maps_->heads; ++h) {
      PatchOverlay o;
      o.image = image_;
      o.opacity = opacity_;
      const bool rollout = h == maps_->heads;
      o.levels = attn::vision::normalizedToMax(rollout ? maps_->rollout[static_cast<size_t>(l)]
                                                       : maps_->headMap(l, h));
      if (masks_ && !rollout) o.mask = maps_->headMask(l, h);
      paintPatchOverlay(p, tileRect(l, h), o);
    }
  }
  if (selLayer_ >= 0 && selLayer_ < maps_->layers && selHead_ >= 0 && selHead_ <= maps_->heads) {
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(palette().color(QPalette::Highlight), 2));
    p.drawRect(tileRect(selLayer_, selHead_).adjusted(-1, -1, 1, 1));
  }
}

void VisionHeadGrid::mousePressEvent(QMouseEvent* event) {
  const auto [l, h] = tileAt(event->position());
  if (l >= 0) emit tileClicked(l, h);
}

}  // namespace attn::ui
