#pragma once
// The step-through panel tied to the explorer: a query selector, previous /
// next buttons, and the panel, following the model's current head and result.
// The query is the model's pinned row (the row outlined in the heatmap):
// pinning a row there walks it here, and choosing a query here pins it there.
#include <QWidget>

class QComboBox;
class QPushButton;

namespace attn::ui {

class ExplorerModel;
class HeatmapWidget;
class StepThroughPanel;

class StepThroughView : public QWidget {
  Q_OBJECT
 public:
  explicit StepThroughView(ExplorerModel* model, QWidget* parent = nullptr);

  StepThroughPanel* panel() const { return panel_; }
  int query() const { return query_; }
  /// A heatmap of its own (presentation mode): row clicks pin the row, and the
  /// pinned row is outlined.
  void attachHeatmap(HeatmapWidget* heatmap);

 public slots:
  void setQuery(int query);
  void refresh();

 signals:
  void queryChanged(int query);

 private:
  ExplorerModel* model_;
  StepThroughPanel* panel_;
  QComboBox* queries_;
  QPushButton *prev_, *next_;
  int query_ = 0;
};

}  // namespace attn::ui
