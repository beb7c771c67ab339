#pragma once
// One bar per head for a per-head measure, with the uniform-attention bound
// drawn as a dashed line where the measure has one. Flagged (collapsed) heads
// and the selected head get their own colours; hover shows a tooltip the
// panel provides, a click names the head.
#include <QStringList>
#include <functional>
#include <qcustomplot.h>
#include <vector>

namespace attn {
struct Analysis;
struct HeadMeasure;
}  // namespace attn

namespace attn::ui {

class MetricsBarChart : public QCustomPlot {
  Q_OBJECT
 public:
  explicit MetricsBarChart(QWidget* parent = nullptr);

  /// values[h] for heads 0..H-1; flagged[h] colours a bar as a warning;
  /// `bound` < 0 hides the bound line.
  void setBars(const std::vector<double>& values, const std::vector<bool>& flagged, const QString& yLabel,
               double bound, const QString& boundLabel);
  void setSelectedHead(int head);
  /// Text for the tooltip over head h's bar.
  void setToolTipProvider(std::function<QString(int)> provider) { toolTip_ = std::move(provider); }

  /// The head whose bar is under a widget position, or -1.
  int headAt(const QPoint& pos) const;
  const std::vector<double>& values() const { return values_; }
  double bound() const { return bound_; }
  int selectedHead() const { return selected_; }

 signals:
  void headClicked(int head);

 protected:
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  void rebuild();
  // Leaves room above the bound line for its label; true if the range changed.
  bool updateValueRange();

  QCPBars* normal_;
  QCPBars* flaggedBars_;
  QCPBars* selectedBars_;
  QCPItemStraightLine* boundLine_;
  QCPItemText* boundText_;
  std::vector<double> values_;
  std::vector<bool> flagged_;
  double bound_ = -1;
  int selected_ = -1;
  std::function<QString(int)> toolTip_;
};

/// Draws measure `m` of every head of `an` on `chart`: flagged (collapsed)
/// heads in the warning colour, the log N bound for entropy measures, head
/// `selected` outlined (-1: none). Used by the metrics panel and by exports.
void showHeadMeasure(MetricsBarChart& chart, const attn::Analysis& an, const attn::HeadMeasure& m, int selected);

}  // namespace attn::ui
