#pragma once
// One query row and one key column of the current head: the row's weights over the
// keys and the column's weights from the queries as curves, and where the query
// token attends (its top keys, with their text and weight). The row is the pinned
// one, the column the clicked cell's. A materialized head is read in place; a
// streamed head (a long prompt) is recomputed from the kept q/k on a worker: the
// row as one row of the map, the column a block of rows at a time (each row's
// softmax needs every key), never N x N. The newest request wins.
#include <QWidget>
#include <memory>
#include <vector>

class QCustomPlot;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace attn::ui {

class ExplorerModel;
class HeatmapWidget;
class HiddenPanelGate;
class NewestJob;

class RowColumnPanel : public QWidget {
  Q_OBJECT
 public:
  /// Follows `model`'s pinned row and the cells clicked on `heatmap` (may be null).
  explicit RowColumnPanel(ExplorerModel* model, HeatmapWidget* heatmap = nullptr, QWidget* parent = nullptr);
  ~RowColumnPanel() override;

  /// The key column shown (-1: none); a heatmap click sets it.
  void setKeyColumn(int column);
  int keyColumn() const { return column_; }
  /// The query row shown: the pinned row (-1: none).
  int queryRow() const;
  /// How many top keys the list shows.
  void setTopCount(int k);

  /// As shown: the row's weights over the keys, the column's over the queries (empty
  /// when there is none), the top keys of the row (largest first) and their weights.
  const std::vector<float>& rowWeights() const { return row_; }
  const std::vector<float>& columnWeights() const { return columnValues_; }
  const std::vector<int>& topKeys() const { return top_; }
  QTableWidget* topTable() const { return table_; }
  QString headerText() const;
  /// A streamed head's row or column is still being computed.
  bool busy() const;
  /// Blocks until the pending row and column are shown (tests).
  void waitForIdle();

 signals:
  /// The user clicked a heatmap cell: the dock holding this panel may come forward.
  void cellPicked();

 private:
  void refresh();  // compute() now, or when the panel is next shown
  void compute();
  void showData(std::vector<float> row, std::vector<float> column, const QString& error);

  ExplorerModel* model_;
  QLabel* header_;
  QCustomPlot* rowPlot_;
  QCustomPlot* columnPlot_;
  QSpinBox* topCount_;
  QTableWidget* table_;
  int column_ = -1;
  std::vector<float> row_, columnValues_;
  std::vector<int> top_;
  std::unique_ptr<NewestJob> job_;
  HiddenPanelGate* gate_ = nullptr;
};

}  // namespace attn::ui
