#pragma once
// A matrix drawn as a QCPColorMap: query tokens on rows (top to bottom), key
// tokens on columns, a colour scale beside it. Large matrices are drawn from a
// pooled image of the visible part at about screen resolution, rebuilt as the
// view zooms, so N = 4096 stays responsive and sharpens as you zoom in.
#include <qcustomplot.h>

#include <QStringList>
#include <QTimer>
#include <algorithm>
#include <memory>

#include "attn/masks/mask.h"
#include "attn/tensor.h"

namespace attn::ui {

class HeatmapSource;
class MaskOverlay;
class NewestJob;

/// `title` as drawn in `width` pixels: whole when it fits, else on two lines broken at a
/// " — " (each line elided only if it is still too long).
QString fittedTitle(const QString& title, const QFontMetrics& fm, int width);

class HeatmapWidget : public QCustomPlot {
  Q_OBJECT
 public:
  /// How cells are merged when there are more cells than pixels.
  enum class Pooling { Max, Mean };

  explicit HeatmapWidget(QWidget* parent = nullptr);
  ~HeatmapWidget() override;

  /// Shows `values` (rows x cols); NaN cells get the "masked" colour. The
  /// colour range is [lo, hi]; lo >= hi takes the data's finite range. The
  /// view keeps its zoom when the shape is unchanged.
  void setMatrix(attn::Mat values, const QStringList& rowLabels,
                 const QStringList& colLabels, const QString& title, double lo = 0.0,
                 double hi = 0.0);
  /// Shows a matrix that is not held in memory (a streamed head): its block-pooled overview
  /// (the pooling set here; the title states it), and once the view is zoomed in to at most
  /// kSourceDetailCells visible cells (setSourceDetailCells), the visible rectangle at full
  /// resolution on top.
  /// Both are computed on a worker; the newest request wins.
  void setSource(std::shared_ptr<const HeatmapSource> source, const QStringList& rowLabels,
                 const QStringList& colLabels, const QString& title, double lo = 0.0, double hi = 0.0);
  static constexpr long long kSourceDetailCells = 2LL << 20;
  /// Most cells a side of a source's overview (the block side follows from it).
  void setSourceOverviewSide(int cells) { overviewSide_ = std::max(1, cells); }
  void setSourceDetailCells(long long cells) { detailCells_ = std::max(1LL, cells); }
  void setColormap(const QString& name);
  void setColorScaleLabel(const QString& label);
  void setPooling(Pooling p);
  Pooling pooling() const { return pooling_; }
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
  const QStringList& columnLabels() const { return colLabels_; }
  /// The matrix's shape (the in-memory one's, or the source's).
  int rows() const;
  int cols() const;
  const std::shared_ptr<const HeatmapSource>& source() const { return source_; }
  /// A source's overview as drawn and its block side (0 before it arrives).
  const attn::Mat& overview() const { return overview_; }
  int overviewBlock() const { return overviewBlock_; }
  /// A source's full-resolution rectangle on top of the overview (rows [r0, r1) x
  /// columns [c0, c1), empty when none is shown) and its cells.
  QRect detailRect() const { return detailShown_ ? detailRect_ : QRect(); }
  const attn::Mat& detail() const { return detail_; }
  /// The value of cell (row, col) where it is known at full resolution; false elsewhere.
  bool cellValue(int row, int col, float* value) const;
  /// A source's overview or rectangle is still being computed.
  bool sourceBusy() const;
  /// Blocks until the source's pending overview and rectangle are drawn (tests).
  void waitForSource();
  /// The whole title (the drawn one is fitted to the widget's width: fittedTitle).
  const QString& title() const { return fullTitle_; }
  QString drawnTitle() const;
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
  void requestOverview();
  void requestDetail();
  void drawOverview();
  void drawDetail();
  void setDataRangeFrom(const attn::Mat& m);

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
  // A source's state: the overview under the full-resolution rectangle (its own colour map).
  std::shared_ptr<const HeatmapSource> source_;
  QString baseTitle_;
  double lo_ = 0.0, hi_ = 0.0;
  attn::Mat overview_, detail_;
  int overviewBlock_ = 0;
  int overviewSide_ = 1024;
  long long detailCells_ = kSourceDetailCells;
  QRect detailRect_;  // x = first column, y = first row, in cells
  bool detailShown_ = false;
  QCPColorMap* detailMap_ = nullptr;
  std::unique_ptr<NewestJob> overviewJob_, detailJob_;
};

}  // namespace attn::ui
