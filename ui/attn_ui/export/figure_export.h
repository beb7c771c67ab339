#pragma once
// Writes any view as a figure file without a window: PNG (raster, chosen pixel
// size and DPI), SVG and PDF (vector; text stays text, so the tokens can be
// found in the file). Every write goes to a temporary file that is renamed into
// place, so a failure leaves no partial file and keeps the old one.
//
// A figure is laid out in logical units of 1/96 inch: a W x H pixel figure at
// D DPI is W*96/D x H*96/D logical units, so fonts keep their printed size and
// a 300-DPI PNG looks like the 96-DPI one, only sharper. SVG and PDF get the
// same physical size (W/D x H/D inches).
#include <QRect>
#include <QSize>
#include <QString>
#include <QStringList>
#include <functional>
#include <vector>

#include "attn/status.h"
#include "attn/tensor.h"

class QCPPainter;
class QCustomPlot;

namespace attn::ui {

enum class FigureFormat { Png, Svg, Pdf };

struct FigureOptions {
  QSize size{800, 700};  // pixels (PNG) or the pixel size the physical size derives from
  int dpi = 96;
  QString colormap = "viridis";
  QString title;
  bool sharedScale = false;  // head grid: one colour range for every head
};

/// Paints a figure into `target` (logical units). QCPPainter so QCustomPlot
/// views can draw themselves; it is a QPainter for everything else.
using FigurePainter = std::function<void(QCPPainter& painter, const QRect& target)>;

/// The format named by the file's extension (.png, .svg, .pdf); an error names
/// the file otherwise.
attn::Result<FigureFormat> figureFormatFor(const QString& path);
/// Checks size and DPI; the error names the file and the fault.
attn::Status checkFigureOptions(const QString& path, const FigureOptions& options);
/// The logical size a figure is laid out in (see the header comment).
QSize logicalFigureSize(const FigureOptions& options);
/// A4 width (210 mm) in pixels at `dpi`: 2480 at 300 DPI.
int a4WidthPixels(int dpi);

/// Renders `paint` into `path` in the format its extension names.
attn::Status writeFigure(const QString& path, const FigureOptions& options, const FigurePainter& paint);

/// Sizes a plot that is never shown, so its layout (how many labels fit) is
/// right before data is set; call before HeatmapWidget::setMatrix.
void layoutOffscreen(QCustomPlot& plot, const QSize& size);

/// A QCustomPlot (heatmap, chart) as a figure painter; the plot must outlive it.
FigurePainter plotPainter(QCustomPlot& plot);
/// Like plotPainter for a plot that is on screen: it is drawn black on
/// white (the figure theme) and given back its screen palette afterwards.
FigurePainter livePlotPainter(QCustomPlot& plot);

/// Draws `values` with labels into `path`.
attn::Status exportHeatmap(const attn::Mat& values, const QStringList& rowLabels,
                           const QStringList& colLabels, const QString& path,
                           const FigureOptions& options);

/// Draws every head as a grid of heatmaps (one colour range for all when
/// options.sharedScale) into `path`.
attn::Status exportHeadGrid(const std::vector<attn::Mat>& heads, const QStringList& rowLabels,
                            const QStringList& colLabels, const QString& path,
                            const FigureOptions& options);

}  // namespace attn::ui
