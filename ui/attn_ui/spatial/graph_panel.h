#pragma once
// The "Graph attention" panel: a graph from an edge-list CSV, an
// .npz ('adj' and/or 'x') or the bundled example; one GAT layer computed in
// core (attn::graph::runGat) with the panel's heads, F', head combination and
// seed; the force-directed layout from core; the selected node's attention
// drawn on the graph beside the N x N heatmap. Clicking a node selects it;
// changing the node or head only repaints, so 2,000 nodes stay interactive.
#include <QWidget>
#include <optional>

#include "attn/graph/gat.h"
#include "attn_ui/spatial/graph_attention_view.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace attn::ui {

struct FigureOptions;

class GraphPanel : public QWidget {
  Q_OBJECT
 public:
  explicit GraphPanel(QWidget* parent = nullptr);

  /// Loads an edge list (.csv) or arrays (.npz); false and an error text when it cannot.
  bool openGraph(const QString& path);
  void openExample();
  void setNode(int node);
  void setHead(int head);
  /// Re-runs GAT with the panel's settings (and lays the graph out when it changed).
  bool recompute();

  const attn::graph::GraphData* graph() const { return graph_ ? &*graph_ : nullptr; }
  const attn::graph::GatResult* result() const { return result_ ? &*result_ : nullptr; }
  const attn::Mat& layout() const { return layout_; }
  GraphAttentionView* view() const { return view_; }
  QSpinBox* headsBox() const { return heads_; }
  QComboBox* combineBox() const { return combine_; }
  QString errorText() const { return error_; }
  bool exportFigure(const QString& path, const FigureOptions& options, QString* error);

 signals:
  void changed();

 private:
  void setGraph(attn::graph::GraphData graph, const QString& source);
  void refreshView();
  void showExportDialog();

  QPushButton *open_, *example_, *export_;
  QSpinBox *heads_, *features_, *seed_;
  QComboBox *combine_, *head_;
  QLabel* info_;
  GraphAttentionView* view_;
  std::optional<attn::graph::GraphData> graph_;
  std::optional<attn::graph::GatResult> result_;
  attn::Mat layout_;
  QImage heat_;        // the shown head's heatmap, rebuilt only when the head or result changes
  int heatHead_ = -1;
  QString source_, error_;
  int node_ = 0;
};

}  // namespace attn::ui
