#pragma once
// A matrix drawn as a QCPColorMap: query tokens on rows (top to bottom), key
// tokens on columns, a colour scale beside it. Large matrices are drawn from a
// pooled image of the visible part at about screen resolution, rebuilt as the
// view zooms, so N = 4096 stays responsive and sharpens as you zoom in.
#include <QStringList>
#include <QTimer>
#include <qcustomplot.h>

#include "attn/masks/mask.h"
#include "attn/tensor.h"

namespace attn::ui {

class MaskOverlay;

class HeatmapWidget : public QCustomPlot {
  Q_OBJECT
 public:
  /// How cells are merged when there are more cells than pixels.
  enum class Pooling { Max, Mean };

  explicit HeatmapWidget(QWidget* parent = nullptr);

  /// Shows `values` (rows x cols); NaN cells get the "masked" colour. The
  /// colour range is [lo, hi]; lo >= hi takes the data's finite range. The
  /// view keeps its zoom when the shape is unchanged.
  void setMatrix(attn::Mat values, const QStringList& rowLabels,
                 const QStringList& colLabels, const QString& title, double lo = 0.0,
                 double hi = 0.0);
  void setColormap(const QString& name);
  void setColorScaleLabel(const QString& label);
  void setPooling(Pooling p) { pooling_ = p; }
  /// Outlines query row `row` (-1: none).
  void setPinnedRow(int row);
  /// The mask drawn over a rows x cols matrix (masked cells dimmed and
  /// hatched, rows with every key masked outlined in red); an empty Mask draws
  /// nothing. Takes effect with the next setMatrix or replot.
  void setMaskOverlay(const attn::Mask& mask, int rows, int cols, std::vector<int> fullyMaskedRows);
  void setMaskOverlayVisible(bool visible);
  /// True when the overlay is on and has cells or rows to mark.
  bool maskOverlayShown() const;
  MaskOverlay* maskOverlay() const { return overlay_; }
  /// Shows the whole matrix again.
  void resetView();
  void zoomBy(double factor);

  const attn::Mat& matrix() const { return values_; }
  /// The whole title (the drawn one is elided to the widget's width).
  const QString& title() const { return fullTitle_; }
  QCPColorMap* colorMap() const { return map_; }
  /// Cells per drawn cell along each axis (1 when drawn at full resolution).
  int poolStride() const { return stride_; }
  /// Maps a widget position to a (row, col) cell; false outside the matrix.
  bool cellAt(const QPoint& pos, int* row, int* col) const;

 signals:
  void cellHovered(int row, int col, const QPoint& globalPos);
  void cellClicked(int row, int col);
  void hoverLeft();

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  void rebuildImage();
  void applyLabels();
  void applyTitle();
  void onRangeChanged();

  QCPColorMap* map_ = nullptr;
  QCPColorScale* scale_ = nullptr;
  QCPTextElement* title_ = nullptr;
  MaskOverlay* overlay_ = nullptr;
  QCPItemRect* pin_ = nullptr;
  QTimer rebuild_;
  attn::Mat values_;
  QStringList rowLabels_, colLabels_;
  QString fullTitle_;
  Pooling pooling_ = Pooling::Max;
  int stride_ = 1;
  int pinnedRow_ = -1;
  QPoint pressPos_;
};

}  // namespace attn::ui
