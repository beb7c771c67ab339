#include "attn_ui/variants/variant_figure.h"

#include <QCoreApplication>
#include <qcustomplot.h>

#include "attn_ui/variants/variant_chart_widget.h"
#include "attn_ui/variants/variant_maps_widget.h"

namespace attn::ui {
namespace av = attn::variants;

namespace {
QString tr(const char* s) { return QCoreApplication::translate("VariantFigure", s); }
}  // namespace

void fillVariantChart(VariantChartWidget& chart, const av::VariantRun& run, int head) {
  chart.clear();
  QStringList names;
  std::vector<std::vector<double>> series;
  const int heads = run.numHeads();
  if (head < 0 || head >= heads) return;
  for (int h = 0; h < heads; ++h) names << tr("head %1").arg(h + 1);
  if (!run.span.empty()) {
    for (const auto& s : run.span) {
      std::vector<double> ramp;
      const int shown = std::min<int>(static_cast<int>(s.ramp.size()), 64);
      for (int x = 0; x < shown; ++x) ramp.push_back(s.ramp(x));
      series.push_back(std::move(ramp));
    }
    chart.setSeries(tr("Span mask m_z(x) per head"), tr("distance x = |i − j|"), tr("m_z(x)"), std::move(series), names);
  } else if (!run.hops.empty()) {
    for (const auto& h : run.hops) {
      std::vector<double> e;
      for (const auto& hop : h.hops) e.push_back(hop.meanEntropy);
      series.push_back(std::move(e));
    }
    chart.setSeries(tr("Mean entropy per hop"), tr("hop"), tr("entropy (nats)"), std::move(series), names, 1);
  } else if (run.dynconv) {
    for (const auto& h : run.dynconv->heads) series.emplace_back(h.entropy.data(), h.entropy.data() + h.entropy.size());
    chart.setSeries(tr("Kernel entropy per position"), tr("position i"), tr("entropy (nats)"), std::move(series), names);
  } else if (run.precision) {
    for (const auto& ph : run.precision->heads) {
      std::vector<double> e;
      for (Eigen::Index i = 0; i < ph.error.rows(); ++i) e.push_back(ph.error.row(i).maxCoeff());
      series.push_back(std::move(e));
    }
    chart.setSeries(tr("Largest |A_low − A_fp32| per query row"), tr("query row"), tr("error"), std::move(series), names);
  } else if (run.xl) {
    const int n = static_cast<int>(run.tokens.size());
    for (int h = 0; h < heads; ++h) {
      std::vector<double> share(static_cast<size_t>(n), 0.0);
      for (const auto& seg : run.xl->segments)
        for (int i = 0; i < seg.length; ++i)
          share[static_cast<size_t>(seg.start + i)] =
              seg.memLength > 0 ? seg.heads[static_cast<size_t>(h)].weights.row(i).head(seg.memLength).sum() : 0.0;
      series.push_back(std::move(share));
    }
    chart.setSeries(tr("Weight on memory keys per query"), tr("query position"), tr("weight"), std::move(series), names);
  }
}

FigurePainter variantFigurePainter(const VariantMapsWidget& maps, const VariantChartWidget& chart, const QString& title) {
  return [&maps, &chart, title](QCPPainter& p, const QRect& r) {
    p.fillRect(r, Qt::white);
    QFont f = p.font();
    f.setPixelSize(14);
    f.setBold(true);
    p.setFont(f);
    p.setPen(Qt::black);
    const int titleH = title.isEmpty() ? 0 : 24;
    if (titleH) p.drawText(QRect(r.left(), r.top(), r.width(), titleH), Qt::AlignCenter, title);
    const int chartH = chart.isEmpty() ? 0 : std::max(120, r.height() / 4);
    maps.paintMaps(p, QRect(r.left(), r.top() + titleH, r.width(), r.height() - titleH - chartH), true);
    if (chartH) chart.paintChart(p, QRect(r.left() + r.width() / 8, r.bottom() - chartH, r.width() * 3 / 4, chartH), true);
  };
}

attn::Status exportVariantFigure(const av::VariantRun& run, int head, int segment, const QString& path,
                                 const FigureOptions& options) {
  VariantMapsWidget maps;
  VariantChartWidget chart;
  maps.setColormap(options.colormap);
  maps.setMaps(av::variantMaps(run, head, segment));
  fillVariantChart(chart, run, head);
  return writeFigure(path, options, variantFigurePainter(maps, chart, options.title));
}

}  // namespace attn::ui
