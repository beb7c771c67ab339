#pragma once
// A variant's figure: its maps side by side, under them the per-head chart
// (span ramps, entropy per hop) where it has one. Used by the panel's export
// button and by `attnscope-cli export --variant`.
#include <QString>

#include "attn/variants/variant_run.h"
#include "attn_ui/export/figure_export.h"

namespace attn::ui {

class VariantMapsWidget;
class VariantChartWidget;

/// Fills `chart` with the run's per-head curve for the variant (span ramps over
/// the distance; mean entropy per hop; the kernel entropy per row for dynconv;
/// for precision the error per row of `head`; for xl the weight on memory per
/// query of `head`).
void fillVariantChart(VariantChartWidget& chart, const attn::variants::VariantRun& run, int head);

/// Paints maps (top) and chart (bottom, when not empty) with a title.
FigurePainter variantFigurePainter(const VariantMapsWidget& maps, const VariantChartWidget& chart, const QString& title);

/// Draws `run`'s figure for `head` (segment -1: the last) into `path`.
attn::Status exportVariantFigure(const attn::variants::VariantRun& run, int head, int segment, const QString& path,
                                 const FigureOptions& options);

}  // namespace attn::ui
