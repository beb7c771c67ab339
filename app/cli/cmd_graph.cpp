// attnscope-cli graph: one graph attention layer (GAT, Velickovic et al. 2018)
// over a graph from an edge-list CSV, an .npz ('adj' and/or 'x'), or the bundled
// example; writes the per-head weights, the output, the force-directed layout
// and the neighbourhood as .npz, or draws one node's attention as a figure.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "attn/graph/force_layout.h"
#include "attn/graph/gat.h"
#include "attn/io/npy_reader.h"
#include "attn/io/npz_stream.h"
#include "commands.h"
#include "figures_program.h"

#ifdef ATTNSCOPE_HAVE_UI
#include <qcustomplot.h>

#include "attn_ui/export/figure_export.h"
#include "attn_ui/spatial/graph_attention_view.h"
#include "headless_figures.h"
#endif

namespace attn::cli {
namespace {

struct GraphCliOptions {
  std::string edges, graphFile, features, params, out;
  bool example = false, directed = false, force = false;
  int heads = 4, outFeatures = 8, node = 0, head = 1, layoutIterations = 0;
  std::string combine = "concat";
  float slope = 0.2f;
  uint64_t seed = 42;
  std::string size = "1000x560";
  int dpi = 96;
  std::string colormap = "viridis";
};

Result<Mat> readFeatures(const std::string& path) {
  if (path.ends_with(".npy")) {
    auto a = readNpyFile(path);
    if (!a) return a.error();
    if (a->isText || a->shape.size() != 2)
      return Error{fmt::format("{}: features have shape {} (expected [N, F])", path, a->shapeString())};
    return Mat(a->values.slice2d(0));
  }
  auto arrays = readNpzFile(path);
  if (!arrays) return arrays.error();
  for (const auto& a : *arrays)
    if ((a.name == "x" || a.name == "features") && !a.isText && a.shape.size() == 2) return Mat(a.values.slice2d(0));
  return Error{fmt::format("{}: no 'x' or 'features' array [N, F]", path)};
}

Result<graph::GraphData> loadGraph(const GraphCliOptions& o) {
  const int sources = !o.edges.empty() + !o.graphFile.empty() + o.example;
  if (sources != 1) return Error{"graph: give exactly one of --edges FILE.csv, --graph FILE.npz or --example"};
  Mat features;
  if (!o.features.empty()) {
    auto f = readFeatures(o.features);
    if (!f) return f.error();
    features = std::move(f).value();
  }
  graph::GraphData g;
  std::string source;
  if (o.example) {
    g = graph::exampleGraph(o.seed);
    source = "example graph";
  } else if (!o.edges.empty()) {
    auto e = graph::readEdgeListCsv(o.edges, features.size() > 0 ? static_cast<int>(features.rows()) : 0);
    if (!e) return e.error();
    g = std::move(e).value();
    source = o.edges;
  } else {
    auto a = graph::readGraphArrays(o.graphFile);
    if (!a) return a.error();
    g = std::move(a->graph);
    source = o.graphFile;
  }
  if (o.directed) g.directed = true;
  if (features.size() > 0) {
    if (auto st = graph::attachFeatures(g, features, o.features); !st) return st.error();
  } else if (g.features.size() == 0) {
    if (g.numNodes > graph::kMaxNodes)
      return Error{fmt::format("{}: {} nodes is more than {}", source, g.numNodes, graph::kMaxNodes)};
    g.features = graph::identityFeatures(g.numNodes);  // featureless: one-hot node identity
  }
  if (auto st = graph::validateGraph(g, source); !st) return st.error();
  return g;
}

Result<graph::GatParams> loadParams(const std::string& path) {
  graph::GatParams p;
  if (path.empty()) return p;
  auto arrays = readNpzFile(path);
  if (!arrays) return arrays.error();
  for (const auto& a : *arrays) {
    if (a.name == "gat_w") {
      if (a.isText || a.shape.size() != 3)
        return Error{fmt::format("{}: 'gat_w' has shape {} (expected [H, F, F'])", path, a.shapeString())};
      for (int64_t h = 0; h < a.shape[0]; ++h) p.w.push_back(Mat(a.values.slice2d(h)));
    } else if (a.name == "gat_a") {
      if (a.isText || a.shape.size() != 2)
        return Error{fmt::format("{}: 'gat_a' has shape {} (expected [H, 2F'])", path, a.shapeString())};
      const Mat m(a.values.slice2d(0));
      for (int64_t h = 0; h < a.shape[0]; ++h) p.a.push_back(m.row(h).transpose());
    }
  }
  if (p.w.empty() || p.a.empty()) return Error{fmt::format("{}: needs both 'gat_w' and 'gat_a'", path)};
  return p;
}

Status writeData(const std::string& out, const graph::GraphData& g, const graph::GatResult& r, const Mat& layout) {
  NpzStreamWriter npz;
  if (auto st = npz.open(out); !st) return st;
  Tensor keep;
  keep.shape = {g.numNodes, g.numNodes};
  keep.data.assign(r.keep.begin(), r.keep.end());
  std::vector<Mat> logits;
  for (const Mat& e : r.logits) logits.push_back(e.unaryExpr([](float v) { return std::isfinite(v) ? v : 0.0f; }));
  Tensor edges;
  edges.shape = {static_cast<int64_t>(g.edges.size()), 2};
  for (auto [s, t] : g.edges) edges.data.insert(edges.data.end(), {static_cast<float>(s), static_cast<float>(t)});
  for (auto st : {npz.addFloat("weights", Tensor::stack(r.weights)), npz.addFloat("logits", Tensor::stack(logits)),
                  npz.addFloat("output", Tensor::fromMat(r.output)), npz.addFloat("layout", Tensor::fromMat(layout)),
                  npz.addFloat("keep", keep), npz.addFloat("edges", edges), npz.addStrings("labels", g.labels)})
    if (!st) return st;
  return npz.commit();
}

int runGraph(const GraphCliOptions& o, int argc, char** argv) {
  if (auto st = checkOverwrite(o.out, o.force); !st) return fail(st.error().message);
  const std::string ext = std::filesystem::path(o.out).extension().string();
  const bool figure = ext == ".png" || ext == ".svg" || ext == ".pdf";
  if (!figure && ext != ".npz") return fail(fmt::format("{}: --out must be .npz (data) or .png/.svg/.pdf (figure)", o.out));
#ifndef ATTNSCOPE_HAVE_UI
  if (figure && figuresProgramFound()) return handOverToFigures("graph");
#endif
  auto g = loadGraph(o);
  if (!g) return fail(g.error().message);
  graph::GatSpec spec;
  spec.heads = o.heads;
  spec.outFeatures = o.outFeatures;
  spec.negativeSlope = o.slope;
  spec.seed = o.seed;
  if (o.combine != "concat" && o.combine != "mean")
    return fail(fmt::format("--combine: expected concat or mean (got '{}')", o.combine));
  spec.combine = o.combine == "concat" ? graph::HeadCombine::Concat : graph::HeadCombine::Mean;
  auto params = loadParams(o.params);
  if (!params) return fail(params.error().message);
  auto r = graph::runGat(*g, spec, *params);
  if (!r) return fail((o.params.empty() ? "" : o.params + ": ") + r.error().message);
  const Mat layout = graph::forceLayout(*g, {o.seed, o.layoutIterations});
  if (!figure) {
    if (auto st = writeData(o.out, *g, *r, layout); !st) return fail(st.error().message);
    fmt::print("wrote {} ({} nodes, {} edges, {} heads, {})\n", o.out, g->numNodes, g->edges.size(), r->numHeads(),
               headCombineName(spec.combine));
    return 0;
  }
  if (o.node < 0 || o.node >= g->numNodes)
    return fail(fmt::format("--node: {} is out of range (0..{})", o.node, g->numNodes - 1));
  if (o.head < 1 || o.head > r->numHeads())
    return fail(fmt::format("--head: {} is out of range (1..{})", o.head, r->numHeads()));
#ifndef ATTNSCOPE_HAVE_UI
  (void)argc;
  (void)argv;
  return handOverToFigures("graph", "; write .npz");
#else
  auto size = parseFigureSize(o.size, "1000x560");
  if (!size) return fail(size.error().message);
  return drawHeadless(argv, [&]() -> int {
    ui::FigureOptions fo;
    fo.size = *size;
    fo.dpi = o.dpi;
    fo.colormap = QString::fromStdString(o.colormap);
    if (auto st = ui::checkFigureOptions(QString::fromStdString(o.out), fo); !st)
      return fail(st.error().message);
    ui::GraphAttentionFigure f;
    f.layout = layout;
    f.edges = g->edges;
    f.weights = r->weights[static_cast<size_t>(o.head - 1)];
    f.keep = r->keep;
    for (const auto& l : g->labels) f.labels << QString::fromStdString(l);
    f.groups = g->groups;
    f.node = o.node;
    f.colormap = fo.colormap;
    f.title = QString("GAT head %1 of %2 — attention of node %3")
                  .arg(o.head)
                  .arg(r->numHeads())
                  .arg(QString::fromStdString(g->labels[static_cast<size_t>(o.node)]));
    if (auto st =
            ui::writeFigure(QString::fromStdString(o.out), fo,
                            [&f](QCPPainter& p, const QRect& rect) { ui::paintGraphAttention(p, rect, f); });
        !st)
      return fail(st.error().message);
    fmt::print("wrote {} ({}x{} px, node {}, head {})\n", o.out, size->width(), size->height(), o.node,
               o.head);
    return 0;
  });
#endif
}

}  // namespace

Action addGraphCommand(CLI::App& app, int argc, char** argv) {
  auto* cmd = app.add_subcommand("graph", "Graph attention (GAT): per-head weights over each node's neighbours, "
                                          "layout, output; .npz data or a figure");
  auto o = std::make_shared<GraphCliOptions>();
  cmd->add_option("--edges", o->edges, "Edge list CSV: source,target node indices from 0, one edge per row");
  cmd->add_option("--graph", o->graphFile, ".npz with 'adj' [N, N] and/or 'x' [N, F] (and 'labels' [N])");
  cmd->add_flag("--example", o->example, "The bundled example: three communities of six nodes");
  cmd->add_option("--features", o->features, "Node features: .npy [N, F] or .npz 'x' (default: one-hot node ids)");
  cmd->add_flag("--directed", o->directed, "Edges go source -> target only (default: both ways)");
  cmd->add_option("--heads", o->heads, "Attention heads")->capture_default_str();
  cmd->add_option("--out-features", o->outFeatures, "Output features per head F'")->capture_default_str();
  cmd->add_option("--combine", o->combine, "Heads: concat (hidden layer, ELU) or mean (output layer)")
      ->capture_default_str();
  cmd->add_option("--slope", o->slope, "LeakyReLU negative slope")->capture_default_str();
  cmd->add_option("--params", o->params, ".npz with 'gat_w' [H, F, F'] and 'gat_a' [H, 2F'] (default: seeded)");
  cmd->add_option("--seed", o->seed, "Seed for the parameters, the example and the layout")->capture_default_str();
  cmd->add_option("--layout-iterations", o->layoutIterations, "Force-directed layout steps (0: automatic)");
  cmd->add_option("--out", o->out, "Output: .npz (weights, logits, output, layout, keep, edges, labels) or a figure "
                                   ".png/.svg/.pdf")
      ->required();
  cmd->add_option("--node", o->node, "Figure: the attending node, 0-based")->capture_default_str();
  cmd->add_option("--head", o->head, "Figure: the head, 1-based")->capture_default_str();
  cmd->add_option("--size", o->size, "Figure: pixel size WxH")->capture_default_str();
  cmd->add_option("--dpi", o->dpi, "Figure: resolution")->capture_default_str();
  cmd->add_option("--colormap", o->colormap, "Figure: heatmap colormap")->capture_default_str();
  cmd->add_flag("--force", o->force, "Overwrite an existing output file");
  return [cmd, o, argc, argv]() -> int {
    if (!cmd->parsed()) return -1;
    return runGraph(*o, argc, argv);
  };
}

}  // namespace attn::cli
