#pragma once
// Draws one query patch's attention over an image: the image, each patch
// tinted by the colormap with opacity = its weight / the row's largest weight,
// the query patch outlined, and a colour bar. The same painter draws the
// widget, the GUI's figure export and `attnscope-cli export --view image`.
#include <QImage>
#include <QWidget>

#include "attn/tensor.h"

class QPainter;

namespace attn::ui {

struct ImageAttentionFigure {
  QImage image;        // the used (cropped) part is patch * cols x patch * rows
  int patch = 0, rows = 0, cols = 0;
  attn::Mat weights;   // one head's [N, N] weights over the patches
  int query = 0;       // the query patch whose row is drawn
  QString colormap = "viridis";
  QString title;

  bool valid() const {
    return !image.isNull() && patch > 0 && rows > 0 && cols > 0 && weights.rows() == rows * cols &&
           weights.cols() == rows * cols;
  }
};

/// Paints the figure into `target`; `imageRect` (optional) receives where the image went.
void paintImageAttention(QPainter& painter, const QRect& target, const ImageAttentionFigure& figure,
                         QRectF* imageRect = nullptr);

class ImageAttentionView : public QWidget {
  Q_OBJECT
 public:
  explicit ImageAttentionView(QWidget* parent = nullptr);
  void setFigure(ImageAttentionFigure figure);
  const ImageAttentionFigure& figure() const { return figure_; }
  /// The patch under a widget point, or -1.
  int patchAt(const QPointF& pos) const;
  QSize sizeHint() const override { return {360, 360}; }

 signals:
  void patchClicked(int patch);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  ImageAttentionFigure figure_;
  QRectF imageRect_;
};

}  // namespace attn::ui
