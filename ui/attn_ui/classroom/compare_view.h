#pragma once
// Compare mode's picture: configuration A and B side by side, their
// difference B - A on a diverging colormap centred on 0, and the metric
// deltas (attn::compareHeads) underneath.
#include <QLabel>
#include <QWidget>

#include "attn/teaching/compare.h"
#include "attn_ui/export/figure_export.h"

namespace attn::ui {

class HeatmapWidget;

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(QWidget* parent = nullptr);

  void setComparison(const attn::Mat& a, const attn::Mat& b, const attn::CompareSummary& summary,
                     const QStringList& rowLabels, const QStringList& colLabels, const QString& titleA,
                     const QString& titleB);
  void setColormap(const QString& name);

  HeatmapWidget* plotA() const { return a_; }
  HeatmapWidget* plotB() const { return b_; }
  HeatmapWidget* plotDiff() const { return diff_; }
  /// The metric deltas as text (what the label under the plots shows).
  QString deltasText() const { return deltas_->text(); }
  /// The whole view (three plots and the deltas) as an export figure.
  FigurePainter figurePainter();

 private:
  HeatmapWidget *a_, *b_, *diff_;
  QLabel* deltas_;
  QStringList rows_, cols_;
  QString titleA_, titleB_;
  QString colormap_ = "viridis";
};

/// One line per metric: mean |B - A|, max |B - A|, entropy A, B and delta,
/// argmax agreement, mean Jensen-Shannon divergence.
QString compareDeltasText(const attn::CompareSummary& s);

}  // namespace attn::ui
