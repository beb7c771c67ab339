#pragma once
// A matrix drawn as a QCPColorMap: query tokens on rows (top to bottom), key
// tokens on columns, a colour scale beside it.
#include <QStringList>
#include <qcustomplot.h>

#include "attn/tensor.h"

namespace attn::ui {

class HeatmapWidget : public QCustomPlot {
  Q_OBJECT
 public:
  explicit HeatmapWidget(QWidget* parent = nullptr);

  /// Shows `values` (rows x cols). The colour range is [lo, hi]; lo == hi
  /// takes the data's range.
  void setMatrix(const attn::Mat& values, const QStringList& rowLabels,
                 const QStringList& colLabels, const QString& title, double lo = 0.0,
                 double hi = 0.0);
  void setColormap(const QString& name);
  void setColorScaleLabel(const QString& label);

  const attn::Mat& matrix() const { return values_; }
  QCPColorMap* colorMap() const { return map_; }

 private:
  void applyLabels();

  QCPColorMap* map_ = nullptr;
  QCPColorScale* scale_ = nullptr;
  QCPTextElement* title_ = nullptr;
  attn::Mat values_;
  QStringList rowLabels_, colLabels_;
};

}  // namespace attn::ui
