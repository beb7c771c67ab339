#pragma once
// Every layer and head of a vision transformer at once: a layers x heads grid
// of small overlays of one query's attention (or of each head's DINO mask),
// with the rollout through each layer in the last column. Clicking a tile opens
// that layer and head (or the rollout) in the panel's large view.
#include <QWidget>
#include <memory>

#include "attn/vision/maps/patch_maps.h"

namespace attn::ui {

class VisionHeadGrid : public QWidget {
  Q_OBJECT
 public:
  explicit VisionHeadGrid(QWidget* parent = nullptr);
  /// `masks`: tiles show each head's mask instead of its heat layer.
  void setMaps(QImage image, std::shared_ptr<const attn::vision::QueryMaps> maps, bool masks, double opacity);
  /// The tile drawn as selected: (layer, head), head == heads for the rollout column.
  void setSelected(int layer, int head);
  const attn::vision::QueryMaps* maps() const { return maps_.get(); }
  /// The tile rectangle of (layer, head) in widget coordinates (empty without maps).
  QRectF tileRect(int layer, int head) const;
  /// The (layer, head) under a point; {-1, -1} outside the tiles.
  std::pair<int, int> tileAt(const QPointF& pos) const;
  QSize sizeHint() const override { return {360, 320}; }
  QSize minimumSizeHint() const override { return {120, 80}; }

 signals:
  void tileClicked(int layer, int head);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  double tileSide() const;

  QImage image_;
  std::shared_ptr<const attn::vision::QueryMaps> maps_;
  bool masks_ = false;
  double opacity_ = 0.6;
  int selLayer_ = -1, selHead_ = -1;
};

}  // namespace attn::ui
