// attnscope-cli export: figures (.png/.svg/.pdf) of any view, and data
// (.npy/.npz/.csv/.json) of weights, logits, outputs or metrics, headless.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <regex>

#include "attn/engine.h"
#include "attn/io/table_export.h"
#include "commands.h"
#include "figures_program.h"
#include "model_request.h"
#include "options.h"
#include "variant_options.h"

#ifdef ATTNSCOPE_HAVE_UI
#include <qcustomplot.h>

#include <QTextDocument>

#include "attn/analysis/head_analysis.h"
#include "attn/analysis/measure_table.h"
#include "attn/engine/exec_path.h"
#include "attn/teaching/compare.h"
#include "attn/teaching/step_through.h"
#include "attn/vision/maps/patch_maps.h"
#include "attn_ui/classroom/compare_view.h"
#include "attn_ui/classroom/step_through_panel.h"
#include "attn_ui/explorer/heatmap_widget.h"
#include "attn_ui/explorer/token_lines_widget.h"
#include "attn_ui/export/figure_export.h"
#include "attn_ui/metrics/metrics_bar_chart.h"
#include "attn_ui/spatial/image_attention_view.h"
#include "attn_ui/spatial/image_loader.h"
#include "attn_ui/theme/colormaps.h"
#include "attn_ui/theme/plot_theme.h"
#include "attn_ui/variants/variant_figure.h"
#include "attn_ui/variants/variant_walk_text.h"
#include "attn_ui/vision/vision_overlay_view.h"
#include "headless_figures.h"
#endif

namespace attn::cli {

namespace {
struct ExportOptions {
  std::string out;
  std::string what;  // figure or a DataKind name; empty: from the extension
  std::string view = "heatmap";
  std::string head = "1";
  std::string size = "800x700";
  int dpi = 96;
  std::string colormap = "viridis";
  bool sharedScale = false;
  int query = 0;
  int step = 1;
  std::string compareHead;
  std::string compareMask;
  float compareTemperature = 0.0f;
  std::string compareExec;
  std::string measure = "entropy_mean";
  std::string overlay = "head";  // --model with --image: head, rollout or mask
  double opacity = 0.6;
  bool force = false;
};

bool isDataExtension(const std::string& ext) {
  return ext == ".npy" || ext == ".npz" || ext == ".csv" || ext == ".json";
}

// --head N (1-based) or all; returns 0-based heads.
Result<std::vector<int>> parseHeads(const std::string& text, int numHeads) {
  if (text == "all") {
    std::vector<int> all;
    for (int h = 0; h < numHeads; ++h) all.push_back(h);
    return all;
  }
  static const std::regex numRe(R"(\d{1,6})");
  if (!std::regex_match(text, numRe))
    return Error{fmt::format("--head: expected a head number or 'all' (got '{}')", text)};
  const int h = std::stoi(text);
  if (h < 1 || h > numHeads) return Error{fmt::format("--head: {} is out of range (1..{})", h, numHeads)};
  return std::vector<int>{h - 1};
}

#ifdef ATTNSCOPE_HAVE_UI
QStringList toQ(const std::vector<std::string>& v) {
  QStringList out;
  for (const auto& s : v) out << QString::fromStdString(s);
  return out;
}

/// The figure's one line on success, or its error.
int reportFigure(const attn::Status& st, const ExportOptions& ex, const attn::ui::FigureOptions& fo) {
  if (!st) return fail(st.error().message);
  fmt::print("wrote {} ({}x{} px at {} DPI, {} view)\n", ex.out, fo.size.width(), fo.size.height(), fo.dpi,
             ex.view);
  return 0;
}

/// A vision model's overlay (--model with --image): the query token's attention in the
/// layer and head, the rollout through the layer or the head's 60% mass mask, over the
/// crop the model read, as the window's Vision attention panel draws it.
int exportVisionOverlay(const ExportOptions& ex, const CommonOptions& opts, int h0,
                        const attn::ui::FigureOptions& fo) {
  using namespace attn::ui;
  const auto& req = *opts.model;
  const auto& info = req.model->info();
  const auto& run = req.run;
  auto layer = modelLayerIndex(req, opts.layer);
  if (!layer) return fail(layer.error().message);
  if (ex.overlay != "head" && ex.overlay != "rollout" && ex.overlay != "mask")
    return fail(fmt::format("--overlay: unknown '{}' (head, rollout, mask)", ex.overlay));
  if (!(ex.opacity >= 0.0 && ex.opacity <= 1.0))
    return fail(fmt::format("--opacity: {} is outside 0..1", ex.opacity));
  const int n = static_cast<int>(run.encoding.tokens.size());
  if (ex.query < 0 || ex.query >= n)
    return fail(fmt::format("--query: token {} is out of range (0..{}; 0 is [CLS])", ex.query, n - 1));
  LayeredWeights layers;
  for (const auto& l : run.layers) {
    layers.emplace_back();
    for (const auto& h : l.heads) layers.back().push_back(h.weights);
  }
  const int patch = std::max(info.patchSize, 1);
  const vision::PatchLayout layout{info.prefixTokens, run.pixelValues.height / patch,
                                   run.pixelValues.width / patch, patch};
  auto maps = vision::computeQueryMaps(layers, ex.query, layout);
  if (!maps) return fail(maps.error().message);
  const int li = *layer;
  const Mat& raw = ex.overlay == "rollout" ? maps->rollout[static_cast<size_t>(li)] : maps->headMap(li, h0);
  PatchOverlay o;
  o.image = imageFromPixels(vision::pixelsForDisplay(run.pixelValues, req.model->imageProcessor()));
  o.levels = vision::normalizedToMax(raw);
  if (ex.overlay == "mask") o.mask = maps->headMask(li, h0);
  o.opacity = ex.opacity;
  o.colormap = fo.colormap;
  o.queryPatch = ex.query >= layout.prefix ? ex.query - layout.prefix : -1;
  const std::string who = run.encoding.tokens[static_cast<size_t>(ex.query)];
  const std::string caption =
      ex.overlay == "rollout"
          ? fmt::format("{} — rollout through layer {} — attention of {}", info.name, li + 1, who)
      : ex.overlay == "mask"
          ? fmt::format("{} — layer {}, head {} — patches holding 60% of {}'s attention", info.name, li + 1,
                        h0 + 1, who)
          : fmt::format("{} — layer {}, head {} — attention of {}", info.name, li + 1, h0 + 1, who);
  const double top = raw.size() > 0 ? raw.maxCoeff() : 0.0;
  const QString title = QString::fromStdString(caption);
  return reportFigure(writeFigure(QString::fromStdString(ex.out), fo,
                                  [&](QCPPainter& p, const QRect& r) {
                                    p.fillRect(r, Qt::white);
                                    p.setPen(Qt::black);
                                    paintOverlayFigure(p, r, o, title, top);
                                  }),
                      ex, fo);
}

/// One query patch's weights over the image (--image; --query is the patch, row-major).
int exportImageView(const ExportOptions& ex, const CommonOptions& opts, const AttentionResult& res, int h0,
                    const attn::ui::FigureOptions& fo) {
  using namespace attn::ui;
  if (opts.model && opts.model->model->info().vision) return exportVisionOverlay(ex, opts, h0, fo);
  if (!opts.patchGrid) return fail("--view image: needs --image FILE");
  const auto& g = *opts.patchGrid;
  if (ex.query < 0 || ex.query >= g.count())
    return fail(fmt::format("--query: patch {} is out of range (0..{})", ex.query, g.count() - 1));
  ImageAttentionFigure f;
  f.image = imageFromPixels(*opts.imagePixels);
  f.patch = g.patch;
  f.rows = g.rows;
  f.cols = g.cols;
  f.weights = res.heads[static_cast<size_t>(h0)].weights;
  f.query = ex.query;
  f.colormap = fo.colormap;
  f.title = QString("Patch %1 (%2), head %3 — mask %4")
                .arg(ex.query)
                .arg(QString::fromStdString(g.tokens[static_cast<size_t>(ex.query)]))
                .arg(h0 + 1)
                .arg(QString::fromStdString(res.mask.spec()));
  return reportFigure(writeFigure(QString::fromStdString(ex.out), fo,
                                  [&f](QCPPainter& p, const QRect& r) { paintImageAttention(p, r, f); }),
                      ex, fo);
}

/// One step of the query row's walk through the head (core: attn::stepThrough).
int exportStepThrough(const ExportOptions& ex, const AttentionSpec& spec, const AttentionResult& res, int h0,
                      const attn::ui::FigureOptions& fo) {
  using namespace attn::ui;
  if (ex.query < 0 || ex.query >= res.nq())
    return fail(fmt::format("--query: {} is out of range (0..{})", ex.query, res.nq() - 1));
  auto walk = stepThrough(res.heads[static_cast<size_t>(h0)], spec, ex.query);
  if (!walk) return fail(walk.error().message);
  StepThroughPanel panel;
  panel.setWalk(*walk, toQ(res.keyTokens), toQ(res.queryTokens).value(ex.query));
  if (ex.step < 1 || ex.step > panel.stepCount())
    return fail(fmt::format("--step: {} is out of range (1..{})", ex.step, panel.stepCount()));
  panel.setStep(ex.step - 1);
  return reportFigure(writeFigure(QString::fromStdString(ex.out), fo,
                                  [&](QCPPainter& p, const QRect& r) { panel.paintStep(p, r); }),
                      ex, fo);
}

/// Compare's B: the same input with another mask, temperature or execution path.
Result<AttentionSpec> compareSpec(const ExportOptions& ex, const CommonOptions& opts,
                                  const AttentionSpec& spec) {
  AttentionSpec specB = spec;
  if (!ex.compareMask.empty()) {
    auto m = Mask::parse(ex.compareMask);
    if (!m) return Error{"--compare-mask: " + m.error().message};
    specB.mask = std::move(m).value();
  }
  if (ex.compareTemperature > 0.0f) specB.temperature = ex.compareTemperature;
  if (!ex.compareExec.empty()) {
    auto path = parseExecPath(ex.compareExec);
    if (!path) return Error{fmt::format("--compare-exec: unknown path '{}'", ex.compareExec)};
    specB.exec = *path;
  }
  if (opts.model && (!ex.compareMask.empty() || ex.compareTemperature > 0.0f || !ex.compareExec.empty()))
    return Error{
        "--compare-mask/--compare-temperature/--compare-exec: a model's attention is fixed by its weights; "
        "compare two of its heads with --compare-head"};
  return specB;
}

/// compare: head A of the run beside head B of the run with compareSpec (a model's B is
/// another head of the same layer).
int exportCompare(const ExportOptions& ex, const CommonOptions& opts, const AttentionInput& input,
                  const AttentionSpec& spec, const AttentionResult& res, int h0,
                  const attn::ui::FigureOptions& fo) {
  using namespace attn::ui;
  auto specB = compareSpec(ex, opts, spec);
  if (!specB) return fail(specB.error().message);
  auto resB = opts.model ? Result<AttentionResult>(res) : runAttention(input, *specB);
  if (!resB) return fail(resB.error().message);
  auto hb = parseHeads(ex.compareHead.empty() ? std::to_string(h0 + 1) : ex.compareHead, resB->numHeads());
  if (!hb || hb->size() != 1)
    return fail(hb ? std::string("--compare-head: give one head number")
                   : "--compare-head" + hb.error().message.substr(6));
  const auto& a = res.heads[static_cast<size_t>(h0)];
  const auto& b = resB->heads[static_cast<size_t>(hb->front())];
  auto summary = compareHeads(a, b);
  if (!summary) return fail(summary.error().message);
  CompareView view;
  view.resize(logicalFigureSize(fo));
  view.setColormap(fo.colormap);
  const auto title = [&](const AttentionSpec& s, int h) {
    return QString("head %1, %2, mask %3, T = %4, %5")
        .arg(h + 1)
        .arg(QString::fromStdString(opts.mechanism), QString::fromStdString(s.mask.spec()))
        .arg(s.temperature)
        .arg(QString::fromStdString(std::string(execPathName(s.exec))));
  };
  view.setComparison(a.weights, b.weights, *summary, toQ(res.queryTokens), toQ(res.keyTokens),
                     title(spec, h0), title(*specB, hb->front()));
  return reportFigure(writeFigure(QString::fromStdString(ex.out), fo, view.figurePainter()), ex, fo);
}

int exportFigure(const ExportOptions& ex, const CommonOptions& opts, const AttentionInput& input,
                 const AttentionSpec& spec, const AttentionResult& res, const std::vector<int>& heads,
                 const attn::ui::FigureOptions& fo) {
  using namespace attn::ui;
  const QString out = QString::fromStdString(ex.out);
  const QStringList rows = toQ(res.queryTokens), cols = toQ(res.keyTokens);
  const int h0 = heads.front();
  if (ex.view == "heatmap") {
    if (heads.size() > 1) {
      std::vector<Mat> mats;
      for (int h : heads) mats.push_back(res.heads[static_cast<size_t>(h)].weights);
      return reportFigure(exportHeadGrid(mats, rows, cols, out, fo), ex, fo);
    }
    return reportFigure(exportHeatmap(res.heads[static_cast<size_t>(h0)].weights, rows, cols, out, fo), ex,
                        fo);
  }
  if (ex.view == "image") return exportImageView(ex, opts, res, h0, fo);
  if (ex.view == "token-lines") {
    TokenLinesWidget w;
    std::vector<Mat> mats;
    QList<int> ids;
    for (int h : heads) {
      mats.push_back(res.heads[static_cast<size_t>(h)].weights);
      ids << h;
    }
    w.setData(rows, cols, mats, ids);
    return reportFigure(writeFigure(out, fo, [&](QCPPainter& p, const QRect& r) { w.paintLines(p, r); }), ex,
                        fo);
  }
  if (ex.view == "metrics") {
    // One bar per head for --measure, as the GUI's metrics panel draws it.
    const auto* m = findHeadMeasure(ex.measure);
    if (!m) return fail(fmt::format("--measure: unknown measure '{}' (see `attnscope-cli metrics --csv` columns)", ex.measure));
    const Analysis an = analyzeResult(res);
    MetricsBarChart chart;
    useFigureTheme(&chart);
    layoutOffscreen(chart, logicalFigureSize(fo));
    showHeadMeasure(chart, an, *m, -1);
    return reportFigure(writeFigure(out, fo, plotPainter(chart)), ex, fo);
  }
  if (ex.view == "step-through") return exportStepThrough(ex, spec, res, h0, fo);
  return exportCompare(ex, opts, input, spec, res, h0, fo);
}

// export --variant: the variant's maps and chart, or (--view step-through) one
// step of its row walk as text.
int exportVariant(const ExportOptions& ex, const CommonOptions& opts, const VariantCliOptions& vo, int head,
                  attn::ui::FigureOptions fo) {
  using namespace attn::ui;
  AttentionInput input;
  auto run = runVariantRequest(opts, vo, &input);
  if (!run) return fail(run.error().message);
  if (head >= run->numHeads()) return fail(fmt::format("--head: {} is out of range (1..{})", head + 1, run->numHeads()));
  const QString out = QString::fromStdString(ex.out);
  const auto name = variants::variantName(run->options.kind);
  fo.title = QString("%1 — head %2 of %3").arg(variantDisplayName(run->options.kind)).arg(head + 1).arg(run->numHeads());
  attn::Status st = okStatus();
  if (ex.view == "step-through") {
    QString error;
    const auto steps = variantWalkSteps(*run, input, head, ex.query, &error);
    if (steps.empty()) return fail("--query: " + (error.isEmpty() ? std::string("nothing to walk") : error.toStdString()));
    if (ex.step < 1 || ex.step > static_cast<int>(steps.size()))
      return fail(fmt::format("--step: {} is out of range (1..{})", ex.step, steps.size()));
    const auto& s = steps[static_cast<size_t>(ex.step - 1)];
    st = writeFigure(out, fo, [&](QCPPainter& p, const QRect& r) {
      p.fillRect(r, Qt::white);
      QTextDocument doc;
      doc.setTextWidth(r.width() - 24);
      doc.setHtml(QString("<h3>%1 — %2</h3>%3").arg(fo.title, s.title, s.body));
      p.save();
      p.translate(r.left() + 12, r.top() + 12);
      doc.drawContents(&p);
      p.restore();
    });
  } else {
    st = exportVariantFigure(*run, head, vo.segmentShown - 1, out, fo);
  }
  if (!st) return fail(st.error().message);
  for (const auto& line : variants::variantSummary(*run)) fmt::print("{}\n", line);
  fmt::print("wrote {} ({}x{} px at {} DPI, variant {})\n", ex.out, fo.size.width(), fo.size.height(), fo.dpi, name);
  return 0;
}
#endif

void addExportOptions(CLI::App& cmd, ExportOptions& ex) {
  cmd.add_option("--out", ex.out, "Output file: figure .png/.svg/.pdf or data .npy/.npz/.csv/.json")
      ->required();
  cmd.add_option("--what", ex.what,
                 "figure, weights, logits (scaled, before the mask), outputs, metrics "
                 "(default: figure for .png/.svg/.pdf, weights for data files, metrics for .json)");
  cmd.add_option("--view", ex.view,
                 "Figure view: heatmap, token-lines, step-through, compare, metrics, image (with --image)")
      ->capture_default_str();
  cmd.add_option("--head", ex.head, "Head, 1-based, or 'all' (heatmap: a grid of heads)")
      ->capture_default_str();
  cmd.add_option("--size", ex.size, "Pixel size WxH, or 'a4' (A4 width at --dpi, 4:3)")
      ->capture_default_str();
  cmd.add_option("--dpi", ex.dpi, "Resolution (fonts keep their printed size)")->capture_default_str();
  cmd.add_option("--colormap", ex.colormap, "viridis, magma, cividis, grayscale, diverging")
      ->capture_default_str();
  cmd.add_flag("--shared-scale", ex.sharedScale, "One colour range for every head of a grid");
  cmd.add_option("--query", ex.query,
                 "Step-through: the query row, 0-based; image view: the query patch (with --model: the query "
                 "token, 0 = [CLS])")
      ->capture_default_str();
  cmd.add_option(
         "--overlay", ex.overlay,
         "Image view of a vision model: head (the head's attention), rollout (through --layer) or mask "
         "(the patches holding 60% of the head's attention)")
      ->capture_default_str();
  cmd.add_option("--opacity", ex.opacity, "Image view of a vision model: opacity of the heat layer, 0..1")
      ->capture_default_str();
  cmd.add_option("--step", ex.step, "Step-through: the step, 1-based")->capture_default_str();
  cmd.add_option("--compare-head", ex.compareHead, "Compare: B's head (default: A's)");
  cmd.add_option("--compare-mask", ex.compareMask, "Compare: B's mask (default: A's)");
  cmd.add_option("--compare-temperature", ex.compareTemperature, "Compare: B's temperature (default: A's)");
  cmd.add_option("--compare-exec", ex.compareExec,
                 "Compare: B's execution path, e.g. performer (default: A's)");
  cmd.add_option("--measure", ex.measure,
                 "Metrics view: the per-head measure drawn (a `metrics --csv` column)")
      ->capture_default_str();
  cmd.add_flag("--force", ex.force, "Overwrite an existing output file");
}

/// What --out gets: "figure" or a data kind, from --what or the extension, checked
/// against the extension.
Result<std::string> exportKind(const ExportOptions& ex, bool data) {
  const std::string ext = std::filesystem::path(ex.out).extension().string();
  std::string what = ex.what.empty() ? (data ? (ext == ".json" ? "metrics" : "weights") : "figure") : ex.what;
  if (what != "figure" && !parseDataKind(what))
    return Error{fmt::format("--what: unknown '{}' (figure, weights, logits, outputs, metrics)", what)};
  if (what == "figure" && data)
    return Error{fmt::format("{}: a figure needs .png, .svg or .pdf (or give --what weights)", ex.out)};
  if (what != "figure" && !data)
    return Error{fmt::format("{}: {} are written as .npy, .npz, .csv or .json", ex.out, what)};
  return what;
}

#ifdef ATTNSCOPE_HAVE_UI
/// The figure's pixel size from --size (WxH or a4 at --dpi), after --view, --dpi and
/// --colormap are checked.
Result<QSize> figureRequestSize(const ExportOptions& ex) {
  static const std::vector<std::string> views{"heatmap", "token-lines", "step-through",
                                              "compare", "metrics",     "image"};
  if (std::find(views.begin(), views.end(), ex.view) == views.end())
    return Error{fmt::format(
        "--view: unknown view '{}' (heatmap, token-lines, step-through, compare, metrics, image)", ex.view)};
  if (ex.dpi < 10 || ex.dpi > 2400) return Error{fmt::format("--dpi: {} is out of range (10..2400)", ex.dpi)};
  int w = 0, hgt = 0;
  std::smatch m;
  static const std::regex sizeRe(R"((\d{1,5})x(\d{1,5}))");
  if (ex.size == "a4" || ex.size == "A4") {
    w = attn::ui::a4WidthPixels(ex.dpi);
    hgt = w * 3 / 4;
  } else if (std::regex_match(ex.size, m, sizeRe)) {
    w = std::stoi(m[1]);
    hgt = std::stoi(m[2]);
  } else {
    return Error{fmt::format("--size: expected WxH in pixels, e.g. 800x600, or a4 (got '{}')", ex.size)};
  }
  if (!attn::ui::isColormapNameStd(ex.colormap))
    return Error{fmt::format("--colormap: unknown colormap '{}'", ex.colormap)};
  return QSize(w, hgt);
}

/// "gpt2 — layer 2 of 2 — head 1 of 4", or the mechanism and mask of a computed input.
QString figureTitle(const CommonOptions& opts, const AttentionSpec& spec, int numHeads,
                    const std::vector<int>& heads) {
  const int h0 = heads.front();
  if (opts.model) {
    const auto& info = opts.model->model->info();
    const QString model = QString::fromStdString(fmt::format(
        "{} — layer {} of {}", info.name, (opts.layer > 0 ? opts.layer : info.layers), info.layers));
    return heads.size() > 1 ? model + QString(" — %1 heads").arg(numHeads)
                            : model + QString(" — head %1 of %2").arg(h0 + 1).arg(numHeads);
  }
  const QString mechanism = QString::fromStdString(opts.mechanism),
                mask = QString::fromStdString(spec.mask.spec());
  return heads.size() > 1
             ? QString("%1 heads — %2 — mask: %3").arg(numHeads).arg(mechanism, mask)
             : QString("Head %1 of %2 — %3 — mask: %4").arg(h0 + 1).arg(numHeads).arg(mechanism, mask);
}

/// The figure of the run (or of its variant), under drawHeadless.
int drawExportFigure(const ExportOptions& ex, const CommonOptions& opts, const VariantCliOptions& variant,
                     const std::pair<AttentionInput, AttentionSpec>& req, const AttentionResult& res,
                     const std::vector<int>& heads, QSize size) {
  attn::ui::FigureOptions fo;
  fo.size = size;
  fo.dpi = ex.dpi;
  fo.colormap = QString::fromStdString(ex.colormap);
  fo.sharedScale = ex.sharedScale;
  fo.title = figureTitle(opts, req.second, res.numHeads(), heads);
  if (auto st = attn::ui::checkFigureOptions(QString::fromStdString(ex.out), fo); !st)
    return fail(st.error().message);
  if (variant.active()) {
    if (ex.view != "heatmap" && ex.view != "step-through")
      return fail(fmt::format("--view {}: a variant draws its maps (heatmap) or its step-through", ex.view));
    return exportVariant(ex, opts, variant, heads.front(), fo);
  }
  return exportFigure(ex, opts, req.first, req.second, res, heads, fo);
}
#endif

/// export's action once the command line is parsed.
int runExport(const CLI::App& cmd, CommonOptions& opts, const ExportOptions& ex,
              const VariantCliOptions& variant, char** argv) {
  if (auto st = checkOverwrite(ex.out, ex.force); !st) return fail(st.error().message);
  const bool data = isDataExtension(std::filesystem::path(ex.out).extension().string());
  auto what = exportKind(ex, data);
  if (!what) return fail(what.error().message);
#ifndef ATTNSCOPE_HAVE_UI
  // Before any work: attnscope-cli-figures runs the whole command.
  if (*what == "figure" && figuresProgramFound()) return handOverToFigures("export");
#endif
  keepOneLayer(opts);
  if (!opts.modelDir.empty() && !opts.image.empty() && ex.view == "image")
    opts.modelRunOptions.onlyLayer = -1;  // the rollout composes every layer
  if (!opts.modelDir.empty())
    opts.modelRunOptions.keepLogits = true;  // the step-through and logits exports read them
  auto req = buildRequest(opts);
  if (!req) return fail(req.error().message);
  auto res = runRequest(opts, req->first, req->second);
  if (!res) return fail(res.error().message);
  // Data defaults to every head; a figure to head 1.
  const std::string headText = (data && cmd.count("--head") == 0) ? std::string("all") : ex.head;
  auto heads = parseHeads(headText, res->numHeads());
  if (!heads) return fail(heads.error().message);
  for (const auto& w : res->warnings) fmt::print(stderr, "warning: {}\n", w);

  if (*what != "figure" && variant.active())
    return fail("--variant: export draws its figure; its data comes from `run --variant ... --out FILE.npz`");
  if (*what != "figure") {
    DataExportRequest dr{*parseDataKind(*what), headText == "all" ? std::vector<int>{} : *heads};
    if (auto st = writeResultData(*res, dr, ex.out); !st) return fail(st.error().message);
    fmt::print("wrote {} ({}, {} head(s))\n", ex.out, *what, dr.heads.empty() ? res->numHeads() : 1);
    return 0;
  }
#ifndef ATTNSCOPE_HAVE_UI
  (void)argv;
  return handOverToFigures("export");
#else
  auto size = figureRequestSize(ex);
  if (!size) return fail(size.error().message);
  return drawHeadless(
      argv, [&]() -> int { return drawExportFigure(ex, opts, variant, *req, *res, *heads, *size); });
#endif
}

}  // namespace

Action addExportCommand(CLI::App& app, int argc, char** argv) {
  auto* cmd = app.add_subcommand(
      "export", "Draw a figure (.png, .svg, .pdf) or write data (.npy, .npz, .csv, .json)");
  auto opts = std::make_shared<CommonOptions>();
  auto ex = std::make_shared<ExportOptions>();
  auto variant = std::make_shared<VariantCliOptions>();
  addCommonOptions(*cmd, *opts);
  addVariantOptions(*cmd, *variant);
  addExportOptions(*cmd, *ex);
  return [cmd, opts, ex, variant, argv]() -> int {
    if (!cmd->parsed()) return -1;
    return runExport(*cmd, *opts, *ex, *variant, argv);
  };
}

}  // namespace attn::cli
