#pragma once
// Graph attention drawn for one node and head: the graph at its
// force-directed layout (computed in core), each edge into the selected node
// drawn with opacity = its attention weight (and width), the other edges faint,
// the selected node ringed; beside it the N x N heatmap with non-edges in grey.
// The same painter draws the widget, the panel's figure export and
// `attnscope-cli graph --out FIG.png`.
#include <QImage>
#include <QStringList>
#include <QWidget>
#include <utility>
#include <vector>

#include "attn/tensor.h"

class QPainter;

namespace attn::ui {

struct GraphAttentionFigure {
  attn::Mat layout;                         // [N, 2] in [0, 1]
  std::vector<std::pair<int, int>> edges;   // (source, target)
  attn::Mat weights;                        // one head's [N, N] alpha
  std::vector<uint8_t> keep;                // [N, N] neighbourhood (with self-loops)
  QStringList labels;
  std::vector<int> groups;                  // node colours (optional)
  int node = 0;                             // selected (attending) node
  QString colormap = "viridis";
  QString title;
  bool heatmap = true;                      // draw the N x N heatmap beside the graph
  QImage heatmapImage;                      // N x N pixels, made once by graphHeatmapImage (or per paint)

  int numNodes() const { return static_cast<int>(layout.rows()); }
  bool valid() const {
    const auto n = layout.rows();
    return n > 0 && weights.rows() == n && weights.cols() == n && keep.size() == static_cast<size_t>(n * n);
  }
};

/// The heatmap's pixels: colormap of alpha / its maximum, non-edges grey.
QImage graphHeatmapImage(const GraphAttentionFigure& figure);

/// Paints the figure; `graphRect` (optional) receives the graph's square.
void paintGraphAttention(QPainter& painter, const QRect& target, const GraphAttentionFigure& figure,
                         QRectF* graphRect = nullptr);

class GraphAttentionView : public QWidget {
  Q_OBJECT
 public:
  explicit GraphAttentionView(QWidget* parent = nullptr);
  void setFigure(GraphAttentionFigure figure);
  const GraphAttentionFigure& figure() const { return figure_; }
  /// The node nearest a widget point within a few pixels, or -1.
  int nodeAt(const QPointF& pos) const;
  QSize sizeHint() const override { return {640, 360}; }

 signals:
  void nodeClicked(int node);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  GraphAttentionFigure figure_;
  QRectF graphRect_;
};

}  // namespace attn::ui
