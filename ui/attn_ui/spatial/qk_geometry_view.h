#pragma once
// Query-key geometry drawn (AttentionViz): the head's queries and keys
// at their joint 2-D PCA positions (core: attn::qkGeometry), queries in blue
// and keys in orange with token labels; the hovered (or chosen) query is
// joined to its top keys by lines whose width follows the weight. The same
// painter draws the widget, the panel's figure export and
// `attnscope-cli geometry --out FIG.png`.
#include <QStringList>
#include <QWidget>

#include "attn/analysis/qk_geometry.h"

class QPainter;

namespace attn::ui {

struct QkGeometryFigure {
  attn::QkGeometry geometry;
  QStringList queryLabels, keyLabels;
  attn::Mat weights;   // the head's [Nq, Nk] weights (for top keys); may be empty
  int query = -1;      // highlighted query, -1 none
  int topK = 3;
  QString title;

  bool valid() const { return geometry.points.rows() == geometry.numQueries + geometry.numKeys && geometry.numQueries > 0; }
};

/// Paints the figure; `plotRect` (optional) receives the data area and `toScreen`
/// the mapping (used for hover hit-tests).
void paintQkGeometry(QPainter& painter, const QRect& target, const QkGeometryFigure& figure,
                     QRectF* plotRect = nullptr);
/// Where point `row` of the figure lands in `plotRect`.
QPointF qkPointPosition(const QkGeometryFigure& figure, const QRectF& plotRect, int row);

class QkGeometryView : public QWidget {
  Q_OBJECT
 public:
  explicit QkGeometryView(QWidget* parent = nullptr);
  void setFigure(QkGeometryFigure figure);
  const QkGeometryFigure& figure() const { return figure_; }
  /// The query under a widget point (within a few pixels), or -1.
  int queryAt(const QPointF& pos) const;
  void setHighlightedQuery(int query);
  QSize sizeHint() const override { return {420, 380}; }

 signals:
  void queryHovered(int query);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mouseMoveEvent(QMouseEvent* event) override;

 private:
  QkGeometryFigure figure_;
  QRectF plotRect_;
};

}  // namespace attn::ui
