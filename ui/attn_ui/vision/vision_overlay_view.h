#pragma once
// The panel's large overlay: one PatchOverlay fitted to the widget, a colour
// bar under it, and clicks mapped to the patch under the pointer.
#include <QWidget>

#include "attn_ui/vision/patch_overlay.h"

namespace attn::ui {

class VisionOverlayView : public QWidget {
  Q_OBJECT
 public:
  explicit VisionOverlayView(QWidget* parent = nullptr);
  void setOverlay(PatchOverlay overlay, const QString& caption, double maxValue);
  const PatchOverlay& overlay() const { return overlay_; }
  const QString& caption() const { return caption_; }
  /// Where the image was last painted (widget coordinates).
  QRectF imageRect() const { return imageRect_; }
  /// The patch (row-major) under a widget point, or -1.
  int patchAt(const QPointF& pos) const;
  QSize sizeHint() const override { return {360, 380}; }
  QSize minimumSizeHint() const override { return {140, 140}; }

 signals:
  void patchClicked(int patch);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  PatchOverlay overlay_;
  QString caption_;
  double maxValue_ = 0.0;
  QRectF imageRect_;
};

/// Paints the overlay with its caption above and a colour bar (0 .. maxValue) below.
QRectF paintOverlayFigure(QPainter& painter, const QRect& target, const PatchOverlay& overlay,
                          const QString& caption, double maxValue);

}  // namespace attn::ui
