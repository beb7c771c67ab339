#pragma once
// Figures of a training run for papers and slides: a grid of the fixed
// example's attention maps over training (rows = recorded steps, columns =
// heads, the expected pattern last), the map-forming animation as PNG frames
// (and an animated GIF when ImageMagick's `convert` is installed), all drawn
// with the project's colormaps on one 0..1 weight scale so sharpening shows.
// The grid goes through writeFigure, so it is PNG, SVG or PDF by extension.
#include <QImage>
#include <QString>
#include <QStringList>
#include <vector>

#include "attn/status.h"
#include "attn/tensor.h"
#include "attn_ui/export/figure_export.h"

class QPainter;

namespace attn::ui {

/// The maps of one recorded step: per-head weights and a caption.
struct MapRow {
  QString caption;              // "step 300"
  std::vector<attn::Mat> maps;  // one per head
};

/// Paints the maps with time running left to right: one column per MapRow
/// (its caption on top), one row per head (titled by titles[h] when there is
/// more than one head), and the expected pattern as the last column (titled
/// titles[heads]). Cells are squares drawn as rectangles (vector in SVG/PDF);
/// key tokens go under the bottom row when they fit.
void paintMapGrid(QPainter& painter, const QRect& target, const std::vector<MapRow>& rows,
                  const attn::Mat* expected, const QStringList& titles, const QStringList& tokens,
                  const QString& colormap, const QString& title);

/// Writes the grid (PNG/SVG/PDF by extension); errors name the file.
attn::Status exportMapGrid(const std::vector<MapRow>& rows, const attn::Mat* expected,
                           const QStringList& titles, const QStringList& tokens, const QString& path,
                           const FigureOptions& options);

/// Renders one animation frame (one step's maps beside the expected
/// pattern, `title` above) as an image.
QImage renderMapFrame(const MapRow& row, const attn::Mat* expected, const QStringList& titles,
                      const QStringList& tokens, const QString& colormap, const QSize& size, const QString& title);

/// Writes frames as DIR/frame_0000.png, ...; returns the paths written.
/// Every frame is written to a temporary name and renamed, so a failure
/// leaves no partial frame; an error names the directory or file.
attn::Result<QStringList> writeFramePngs(const std::vector<QImage>& frames, const QString& dir);

/// The ImageMagick `convert` (or `magick`) program, or empty when absent.
QString imageMagickProgram();
/// Assembles PNG frames into an animated GIF with ImageMagick; `delayMs`
/// per frame, looping. An error says that ImageMagick is missing or failed.
attn::Status writeGifWithImageMagick(const QStringList& pngs, const QString& gifPath, int delayMs);

}  // namespace attn::ui
