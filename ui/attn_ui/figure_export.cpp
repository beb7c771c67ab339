#include "attn_ui/figure_export.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryFile>
#include <filesystem>

#include "attn_ui/heatmap_widget.h"

namespace attn::ui {

attn::Status exportHeatmap(const attn::Mat& values, const QStringList& rowLabels,
                           const QStringList& colLabels, const QString& path,
                           const FigureOptions& options) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix != "png")
    return attn::Error{QString("%1: unsupported figure format '.%2' (use .png)").arg(path, suffix).toStdString()};
  if (options.size.width() < 16 || options.size.height() < 16 || options.size.width() > 20000 ||
      options.size.height() > 20000)
    return attn::Error{QString("%1: figure size %2x%3 is out of range (16..20000 pixels)")
                           .arg(path).arg(options.size.width()).arg(options.size.height()).toStdString()};

  HeatmapWidget plot;
  plot.resize(options.size);
  plot.setColormap(options.colormap);
  plot.setColorScaleLabel(QObject::tr("weight"));
  plot.setMatrix(values, rowLabels, colLabels, options.title);

  const QFileInfo info(path);
  QTemporaryFile tmp(info.absoluteDir().filePath(info.fileName() + ".XXXXXX"));
  if (!tmp.open())
    return attn::Error{QString("%1: cannot write in folder %2").arg(path, info.absolutePath()).toStdString()};
  tmp.close();
  if (!plot.savePng(tmp.fileName(), options.size.width(), options.size.height(), 1.0, -1,
                    options.dpi, QCP::ruDotsPerInch))
    return attn::Error{QString("%1: could not render the PNG").arg(path).toStdString()};
  std::error_code ec;  // rename(2) replaces the old file atomically
  std::filesystem::rename(tmp.fileName().toStdString(), path.toStdString(), ec);
  if (ec)
    return attn::Error{QString("%1: cannot replace the file (%2)").arg(path, QString::fromStdString(ec.message())).toStdString()};
  tmp.setAutoRemove(false);
  return attn::okStatus();
}

}  // namespace attn::ui
