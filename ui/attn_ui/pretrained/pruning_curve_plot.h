#pragma once
// The pruning curve (Michel et al. 2019, Fig. 3): heads removed in increasing
// order of importance, the text's mean next-token loss (causal models) or the
// final hidden states' change (encoders) against the fraction removed.
#include <qcustomplot.h>

#include "attn/models/experiments/head_experiments.h"

namespace attn::ui {

class PruningCurvePlot : public QCustomPlot {
  Q_OBJECT
 public:
  explicit PruningCurvePlot(QWidget* parent = nullptr);
  /// Draws `imp.curve`; an empty curve clears the plot.
  void setCurve(const attn::models::HeadImportance& imp);
  void clearCurve();
  /// The points drawn (fraction, value).
  QVector<QPointF> points() const;
  QSize sizeHint() const override { return {320, 200}; }

 private:
  QCPGraph* graph_;
  QCPItemStraightLine* baseline_;
};

}  // namespace attn::ui
