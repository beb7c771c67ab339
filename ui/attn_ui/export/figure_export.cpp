#include "attn_ui/export/figure_export.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>
#include <memory>
#include <qcustomplot.h>

#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/theme/plot_theme.h"

namespace attn::ui {
namespace {

constexpr double kLogicalDpi = 96.0;

attn::Error err(const QString& path, const QString& what) {
  return attn::Error{QString("%1: %2").arg(path, what).toStdString()};
}

// QSaveFile writes beside the target and renames on commit: atomic, and an
// aborted write removes the temporary.
attn::Status writeBytesAtomic(const QString& path, const QByteArray& bytes) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    return err(path, QString("cannot write (%1)").arg(file.errorString()));
  if (file.write(bytes) != bytes.size() || !file.commit())
    return err(path, QString("cannot write (%1)").arg(file.errorString()));
  return attn::okStatus();
}

QByteArray renderPng(const FigureOptions& o, const FigurePainter& paint, bool* ok) {
  QImage image(o.size, QImage::Format_ARGB32_Premultiplied);
  if (image.isNull()) {
    *ok = false;
    return {};
  }
  const int dpm96 = static_cast<int>(std::lround(kLogicalDpi / 0.0254));
  // Lay out at 96 DPI (fonts in points map as on screen), scale up to the pixels.
  image.setDotsPerMeterX(dpm96);
  image.setDotsPerMeterY(dpm96);
  image.fill(Qt::white);
  {
    QCPPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    const QSize logical = logicalFigureSize(o);
    painter.scale(static_cast<double>(o.size.width()) / logical.width(),
                  static_cast<double>(o.size.height()) / logical.height());
    paint(painter, QRect(QPoint(0, 0), logical));
  }
  const int dpm = static_cast<int>(std::lround(o.dpi / 0.0254));
  image.setDotsPerMeterX(dpm);
  image.setDotsPerMeterY(dpm);
  QByteArray bytes;
  QBuffer buf(&bytes);
  buf.open(QIODevice::WriteOnly);
  *ok = image.save(&buf, "PNG");
  return bytes;
}

QByteArray renderSvg(const FigureOptions& o, const FigurePainter& paint) {
  QByteArray bytes;
  QBuffer buf(&bytes);
  buf.open(QIODevice::WriteOnly);
  const QSize logical = logicalFigureSize(o);
  QSvgGenerator svg;
  svg.setOutputDevice(&buf);
  svg.setSize(logical);  // at 96 "DPI": width/height attributes give the physical size
  svg.setViewBox(QRect(QPoint(0, 0), logical));
  svg.setResolution(static_cast<int>(kLogicalDpi));
  svg.setTitle(o.title.isEmpty() ? QStringLiteral("AttnScope figure") : o.title);
  svg.setDescription(QStringLiteral("Drawn by AttnScope"));
  {
    QCPPainter painter(&svg);
    painter.setMode(QCPPainter::pmVectorized);
    painter.fillRect(QRect(QPoint(0, 0), logical), Qt::white);
    paint(painter, QRect(QPoint(0, 0), logical));
  }
  return bytes;
}

QByteArray renderPdf(const FigureOptions& o, const FigurePainter& paint, bool* ok) {
  QByteArray bytes;
  QBuffer buf(&bytes);
  buf.open(QIODevice::WriteOnly);
  const QSize logical = logicalFigureSize(o);
  QPdfWriter pdf(&buf);
  pdf.setCreator(QStringLiteral("AttnScope"));
  pdf.setTitle(o.title);
  pdf.setResolution(static_cast<int>(kLogicalDpi));
  // Page = the figure's physical size, in points (1/72 inch).
  const QSizeF points(o.size.width() * 72.0 / o.dpi, o.size.height() * 72.0 / o.dpi);
  pdf.setPageSize(QPageSize(points, QPageSize::Point, QString(), QPageSize::ExactMatch));
  pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
  {
    QCPPainter painter;
    if (!painter.begin(&pdf)) {
      *ok = false;
      return {};
    }
    painter.setMode(QCPPainter::pmVectorized);
    paint(painter, QRect(QPoint(0, 0), logical));
    painter.end();
  }
  *ok = bytes.startsWith("%PDF");
  return bytes;
}

}  // namespace

attn::Result<FigureFormat> figureFormatFor(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == "png") return FigureFormat::Png;
  if (suffix == "svg") return FigureFormat::Svg;
  if (suffix == "pdf") return FigureFormat::Pdf;
  return err(path, QString("unsupported figure format '.%1' (use .png, .svg or .pdf)").arg(suffix));
}

attn::Status checkFigureOptions(const QString& path, const FigureOptions& o) {
  if (o.size.width() < 16 || o.size.height() < 16 || o.size.width() > 20000 || o.size.height() > 20000)
    return err(path, QString("figure size %1x%2 is out of range (16..20000 pixels)")
                         .arg(o.size.width())
                         .arg(o.size.height()));
  if (o.dpi < 10 || o.dpi > 2400) return err(path, QString("DPI %1 is out of range (10..2400)").arg(o.dpi));
  const QSize logical = logicalFigureSize(o);
  if (logical.width() < 120 || logical.height() < 100)
    return err(path, QString("figure size %1x%2 at %3 DPI is too small to lay out (at least %4x%5 pixels)")
                         .arg(o.size.width())
                         .arg(o.size.height())
                         .arg(o.dpi)
                         .arg(static_cast<int>(std::ceil(120.0 * o.dpi / kLogicalDpi)))
                         .arg(static_cast<int>(std::ceil(100.0 * o.dpi / kLogicalDpi))));
  return attn::okStatus();
}

QSize logicalFigureSize(const FigureOptions& o) {
  const double f = kLogicalDpi / std::max(1, o.dpi);
  return {std::max(1, static_cast<int>(std::lround(o.size.width() * f))),
          std::max(1, static_cast<int>(std::lround(o.size.height() * f)))};
}

int a4WidthPixels(int dpi) { return static_cast<int>(std::lround(210.0 / 25.4 * dpi)); }

attn::Status writeFigure(const QString& path, const FigureOptions& options, const FigurePainter& paint) {
  auto format = figureFormatFor(path);
  if (!format) return format.error();
  if (auto st = checkFigureOptions(path, options); !st) return st;
  bool ok = true;
  QByteArray bytes;
  switch (*format) {
    case FigureFormat::Png: bytes = renderPng(options, paint, &ok); break;
    case FigureFormat::Svg: bytes = renderSvg(options, paint); break;
    case FigureFormat::Pdf: bytes = renderPdf(options, paint, &ok); break;
  }
  if (!ok || bytes.isEmpty()) return err(path, "could not render the figure");
  return writeBytesAtomic(path, bytes);
}

void layoutOffscreen(QCustomPlot& plot, const QSize& size) {
  // A hidden widget gets no resize event, so QCustomPlot's viewport (and the
  // axis rect that decides how many tick labels fit) would keep a stale size.
  plot.resize(size);
  plot.setViewport(QRect(QPoint(0, 0), size));
  plot.replot();
}

FigurePainter plotPainter(QCustomPlot& plot) {
  return [&plot](QCPPainter& painter, const QRect& target) {
    painter.save();
    painter.translate(target.topLeft());
    plot.toPainter(&painter, target.width(), target.height());
    painter.restore();
  };
}

FigurePainter livePlotPainter(QCustomPlot& plot) {
  return [&plot](QCPPainter& painter, const QRect& target) {
    const bool fixed = plot.property(kFixedThemeProperty).toBool();
    if (!fixed) useFigureTheme(&plot);
    plotPainter(plot)(painter, target);
    if (!fixed) {
      plot.setProperty(kFixedThemeProperty, false);
      applyPlotPalette(&plot, plot.palette());
      plot.replot(QCustomPlot::rpQueuedReplot);
    }
  };
}

attn::Status exportHeatmap(const attn::Mat& values, const QStringList& rowLabels,
                           const QStringList& colLabels, const QString& path,
                           const FigureOptions& options) {
  if (auto st = checkFigureOptions(path, options); !st) return st;
  HeatmapWidget plot;
  useFigureTheme(&plot);
  layoutOffscreen(plot, logicalFigureSize(options));
  plot.setColormap(options.colormap);
  plot.setColorScaleLabel(QObject::tr("weight"));
  plot.setMatrix(values, rowLabels, colLabels, options.title);
  return writeFigure(path, options, plotPainter(plot));
}

attn::Status exportHeadGrid(const std::vector<attn::Mat>& heads, const QStringList& rowLabels,
                            const QStringList& colLabels, const QString& path,
                            const FigureOptions& options) {
  if (heads.empty()) return err(path, "no heads to draw");
  if (auto st = checkFigureOptions(path, options); !st) return st;
  const int n = static_cast<int>(heads.size());
  const int cols = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n))));
  const int rows = (n + cols - 1) / cols;
  const QSize logical = logicalFigureSize(options);
  const int titleH = options.title.isEmpty() ? 0 : 28;
  const QSize cell((logical.width()) / cols, (logical.height() - titleH) / rows);

  double lo = 0.0, hi = 0.0;  // lo == hi: each head takes its own range
  if (options.sharedScale) {
    lo = heads[0].minCoeff();
    hi = heads[0].maxCoeff();
    for (const auto& h : heads) {
      lo = std::min<double>(lo, h.minCoeff());
      hi = std::max<double>(hi, h.maxCoeff());
    }
    if (hi <= lo) hi = lo + 1.0;
  }
  std::vector<std::unique_ptr<HeatmapWidget>> plots;
  for (int i = 0; i < n; ++i) {
    auto plot = std::make_unique<HeatmapWidget>();
    plot->setMinimumSize(16, 16);
    useFigureTheme(plot.get());
    layoutOffscreen(*plot, cell);
    plot->setColormap(options.colormap);
    plot->setColorScaleLabel(options.sharedScale ? QObject::tr("weight (shared scale)") : QObject::tr("weight"));
    plot->setMatrix(heads[static_cast<size_t>(i)], rowLabels, colLabels, QObject::tr("Head %1").arg(i + 1), lo, hi);
    plots.push_back(std::move(plot));
  }
  const QString title = options.title;
  return writeFigure(path, options, [&](QCPPainter& painter, const QRect& target) {
    if (!title.isEmpty()) {
      QFont f = painter.font();
      f.setPointSizeF(12);
      f.setBold(true);
      painter.setFont(f);
      painter.setPen(Qt::black);
      painter.drawText(QRect(target.left(), target.top(), target.width(), titleH), Qt::AlignCenter, title);
    }
    for (int i = 0; i < n; ++i) {
      const QRect r(target.left() + (i % cols) * cell.width(), target.top() + titleH + (i / cols) * cell.height(),
                    cell.width(), cell.height());
      plotPainter(*plots[static_cast<size_t>(i)])(painter, r);
    }
  });
}

}  // namespace attn::ui
