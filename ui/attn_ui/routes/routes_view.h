#pragma once
// The contribution graph (Ferrando & Voita 2024's information flow routes) drawn with
// QPainter: the residual stream's nodes as a grid, tokens as columns and, from the bottom,
// the embeddings then each layer's middle (after attention) and output (after the MLP);
// the route's edges as lines whose width and opacity follow their importance, coloured by
// kind (attention head, residual, MLP). Hovering an edge names it; clicking one emits it.
// paintRoutes draws the same picture into a figure file.
#include <QPointF>
#include <QRectF>
#include <QStringList>
#include <QWidget>
#include <vector>

#include "attn/models/attribution/flow_routes.h"

class QPainter;

namespace attn::ui {

/// What the graph shows: the route's edges over `layers` layers of `tokens`.
struct RoutesFigure {
  QStringList tokens;  // one per column, as shown
  int layers = 0;
  int position = -1;  // the traced token, drawn at the top
  std::vector<attn::models::RouteEdge> edges;
  QString title;
  bool valid() const { return layers > 0 && !tokens.isEmpty(); }
};

/// The node grid inside `area`: where node (row, column) is drawn; row 0 is the embeddings,
/// row 2l + 1 layer l's middle, row 2l + 2 its output.
struct RoutesLayout {
  QRectF plot;  // the nodes' rectangle
  int rows = 0, columns = 0;
  QPointF node(int row, int column) const;
  /// An edge's end points and the control point of its curve (MLP edges and a head's
  /// edge from the token to itself bow sideways, apart from the straight residual).
  void edgeCurve(const attn::models::RouteEdge& e, QPointF& from, QPointF& control, QPointF& to) const;
};
RoutesLayout routesLayout(const RoutesFigure& figure, const QRectF& area, const QFontMetricsF& metrics);

/// Draws the figure into `area`; `hovered` (an index into figure.edges, or -1) is outlined.
void paintRoutes(QPainter& painter, const QRectF& area, const RoutesFigure& figure, const QPalette& palette,
                 int hovered = -1);

/// The colour of an edge kind (the legend's).
QColor routeEdgeColour(attn::models::RouteEdgeKind kind);

class RoutesView : public QWidget {
  Q_OBJECT
 public:
  explicit RoutesView(QWidget* parent = nullptr);
  void setFigure(RoutesFigure figure);
  const RoutesFigure& figure() const { return figure_; }
  /// The edge nearest `point` (widget coordinates) within a few pixels, preferring the most
  /// important; -1 when none.
  int edgeAt(const QPointF& point) const;
  /// The middle of edge `index`'s curve, in widget coordinates (tests click there).
  QPointF edgeMiddle(int index) const;
  /// The tooltip of edge `index`.
  QString edgeText(int index) const;
  QSize sizeHint() const override { return {640, 420}; }
  QSize minimumSizeHint() const override { return {240, 160}; }

 signals:
  void edgeClicked(const attn::models::RouteEdge& edge);

 protected:
  bool event(QEvent* event) override;
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  RoutesLayout layout() const;

  RoutesFigure figure_;
  int hovered_ = -1;
};

}  // namespace attn::ui
