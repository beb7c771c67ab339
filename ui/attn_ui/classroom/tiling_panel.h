#pragma once
// The "Tiling and approximation" panel: which execution path ran (and
// what `auto` picked), the approximation error of performer / linear_elu /
// linformer against exact softmax attention, and a teaching view of tiled
// execution: the block schedule under the mask (computed, tested cell by cell,
// skipped) and one query row's running max and normalizer tile by tile. Every
// number comes from core (attn::tilingTeachingView, AttentionResult).
#include <QWidget>
#include <optional>

#include "attn/teaching/tiling_view.h"

class QLabel;
class QSpinBox;
class QTableWidget;

namespace attn::ui {

class ExplorerModel;

/// One line naming the path that ran, and why when `auto` chose it.
QString executionPathText(const attn::AttentionResult& result, const attn::AttentionSpec& spec);
/// The head's approximation error, or empty for exact paths.
QString approximationErrorText(const attn::HeadResult& head, int headIndex);

/// Paints a BlockSchedule: a square per tile, the traced row's query block outlined.
class BlockScheduleWidget : public QWidget {
  Q_OBJECT
 public:
  explicit BlockScheduleWidget(QWidget* parent = nullptr);
  void setSchedule(const attn::BlockSchedule& schedule, int highlightQueryBlock);
  void clear();
  QSize sizeHint() const override { return {220, 220}; }

 protected:
  void paintEvent(class QPaintEvent*) override;

 private:
  attn::BlockSchedule schedule_;
  int highlight_ = -1;
};

class TilingPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TilingPanel(ExplorerModel* model, QWidget* parent = nullptr);

  /// The view shown; empty when there is none (no result, or see message()).
  const std::optional<attn::TilingTeachingView>& view() const { return view_; }
  QString pathText() const;
  QString errorText() const;
  QString message() const;
  QString summaryText() const;
  QSpinBox* tileSizeBox() const { return tile_; }
  QSpinBox* rowBox() const { return row_; }
  QTableWidget* traceTable() const { return table_; }
  BlockScheduleWidget* scheduleWidget() const { return schedule_; }

  /// Most tiles per side the schedule draws: larger inputs get larger teaching tiles.
  static constexpr int kMaxTilesPerSide = 48;

 public slots:
  void refresh();

 private:
  void fillTable();

  ExplorerModel* model_;
  QLabel* path_;
  QLabel* error_;
  QSpinBox* tile_;
  QSpinBox* row_;
  BlockScheduleWidget* schedule_;
  QLabel* legend_;
  QTableWidget* table_;
  QLabel* summary_;
  QLabel* message_;
  std::optional<attn::TilingTeachingView> view_;
};

}  // namespace attn::ui
