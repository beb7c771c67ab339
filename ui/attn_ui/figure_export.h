#pragma once
// Renders a heatmap figure to a file without a window (PNG; SVG/PDF later).
#include <QSize>
#include <QString>
#include <QStringList>

#include "attn/status.h"
#include "attn/tensor.h"

namespace attn::ui {

struct FigureOptions {
  QSize size{800, 700};  // pixels
  int dpi = 96;
  QString colormap = "viridis";
  QString title;
};

/// Draws `values` with labels into `path` (format from its extension: .png).
/// Written to a temporary file and renamed, so a failure leaves no partial file.
attn::Status exportHeatmap(const attn::Mat& values, const QStringList& rowLabels,
                           const QStringList& colLabels, const QString& path,
                           const FigureOptions& options);

}  // namespace attn::ui
