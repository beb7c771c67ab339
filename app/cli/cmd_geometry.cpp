// attnscope-cli geometry: one head's queries and keys projected together to 2-D
// (AttentionViz, Yeh et al. 2023; core: attn::qkGeometry) for any input the
// other commands take (text, file, image, model); writes the points as CSV or
// .npz, or draws the scatter as a figure.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "attn/analysis/qk_geometry.h"
#include "attn/io/atomic_file.h"
#include "attn/io/npz_stream.h"
#include "commands.h"
#include "figures_program.h"
#include "model_request.h"
#include "options.h"

#ifdef ATTNSCOPE_HAVE_UI
#include <qcustomplot.h>

#include "attn_ui/export/figure_export.h"
#include "attn_ui/spatial/qk_geometry_view.h"
#include "headless_figures.h"
#endif

namespace attn::cli {
namespace {

struct GeometryOptions {
  std::string out;
  int head = 1, query = -1, topK = 3;
  std::string size = "800x760";
  int dpi = 96;
  bool force = false;
};

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

Status writePoints(const std::string& out, const QkGeometry& g, const AttentionResult& res) {
  if (out.ends_with(".csv")) {
    std::string s = "kind,index,token,x,y\n";
    for (int r = 0; r < g.numQueries + g.numKeys; ++r) {
      const bool q = r < g.numQueries;
      const int i = q ? r : r - g.numQueries;
      const auto& tokens = q ? res.queryTokens : res.keyTokens;
      s += fmt::format("{},{},{},{:.9g},{:.9g}\n", q ? "query" : "key", i,
                       csvField(static_cast<size_t>(i) < tokens.size() ? tokens[static_cast<size_t>(i)] : ""),
                       g.points(r, 0), g.points(r, 1));
    }
    return writeFileAtomic(out, s);
  }
  NpzStreamWriter npz;
  if (auto st = npz.open(out); !st) return st;
  Tensor expl;
  expl.shape = {2};
  expl.data = {static_cast<float>(g.explained[0]), static_cast<float>(g.explained[1])};
  Tensor scale;
  scale.shape = {1};
  scale.data = {static_cast<float>(g.scale)};
  for (auto st : {npz.addFloat("query_points", Tensor::fromMat(g.points.topRows(g.numQueries))),
                  npz.addFloat("key_points", Tensor::fromMat(g.points.bottomRows(g.numKeys))),
                  npz.addFloat("components", Tensor::fromMat(g.components)), npz.addFloat("explained", expl),
                  npz.addFloat("scale", scale), npz.addStrings("tokens", res.queryTokens),
                  npz.addStrings("key_tokens", res.keyTokens)})
    if (!st) return st;
  return npz.commit();
}

#ifdef ATTNSCOPE_HAVE_UI
/// The scatter of one head's geometry (query `g.query` joined to its top keys), under drawHeadless.
int drawGeometry(const GeometryOptions& g, QkGeometry geo, const AttentionResult& res, const HeadResult& h,
                 QSize size) {
  ui::FigureOptions fo;
  fo.size = size;
  fo.dpi = g.dpi;
  if (auto st = ui::checkFigureOptions(QString::fromStdString(g.out), fo); !st)
    return fail(st.error().message);
  ui::QkGeometryFigure f;
  f.geometry = std::move(geo);
  for (const auto& t : res.queryTokens) f.queryLabels << QString::fromStdString(t);
  for (const auto& t : res.keyTokens) f.keyLabels << QString::fromStdString(t);
  f.weights = h.weights;
  f.query = g.query;
  f.topK = g.topK;
  f.title = QString("Query–key geometry, head %1 of %2").arg(g.head).arg(res.numHeads());
  if (auto st = ui::writeFigure(QString::fromStdString(g.out), fo,
                                [&f](QCPPainter& p, const QRect& r) { ui::paintQkGeometry(p, r, f); });
      !st)
    return fail(st.error().message);
  fmt::print("wrote {} ({}x{} px, head {})\n", g.out, size.width(), size.height(), g.head);
  return 0;
}
#endif

/// geometry's action once the command line is parsed.
int runGeometry(CommonOptions& opts, const GeometryOptions& g, int argc, char** argv) {
  if (auto st = checkOverwrite(g.out, g.force); !st) return fail(st.error().message);
  const std::string ext = std::filesystem::path(g.out).extension().string();
  const bool figure = ext == ".png" || ext == ".svg" || ext == ".pdf";
  if (!figure && ext != ".csv" && ext != ".npz")
    return fail(fmt::format("{}: --out must be .csv, .npz or a figure .png/.svg/.pdf", g.out));
#ifndef ATTNSCOPE_HAVE_UI
  if (figure && figuresProgramFound()) return handOverToFigures("geometry");
#endif
  keepOneLayer(opts);
  auto req = buildRequest(opts);
  if (!req) return fail(req.error().message);
  auto res = runRequest(opts, req->first, req->second);
  if (!res) return fail(res.error().message);
  if (g.head < 1 || g.head > res->numHeads())
    return fail(fmt::format("--head: {} is out of range (1..{})", g.head, res->numHeads()));
  const HeadResult& h = res->heads[static_cast<size_t>(g.head - 1)];
  if (h.q.size() == 0 || h.k.size() == 0)
    return fail("geometry: this input has precomputed weights only, no queries and keys to project");
  auto geo = qkGeometry(h.q, h.k);
  if (!geo) return fail(geo.error().message);
  if (!figure) {
    if (auto st = writePoints(g.out, *geo, *res); !st) return fail(st.error().message);
    fmt::print("wrote {} ({} queries, {} keys; PC1 {:.1f}%, PC2 {:.1f}% of the variance)\n", g.out,
               geo->numQueries, geo->numKeys, 100 * geo->explained[0], 100 * geo->explained[1]);
    return 0;
  }
  if (g.query < -1 || g.query >= geo->numQueries)
    return fail(fmt::format("--query: {} is out of range (-1..{})", g.query, geo->numQueries - 1));
#ifndef ATTNSCOPE_HAVE_UI
  (void)argc;
  (void)argv;
  return handOverToFigures("geometry", "; write .csv");
#else
  auto size = parseFigureSize(g.size, "800x760");
  if (!size) return fail(size.error().message);
  return drawHeadless(argv, [&]() -> int { return drawGeometry(g, std::move(geo).value(), *res, h, *size); });
#endif
}

}  // namespace

Action addGeometryCommand(CLI::App& app, int argc, char** argv) {
  auto* cmd = app.add_subcommand("geometry", "Query-key geometry of one head (AttentionViz): joint 2-D PCA of its "
                                             "queries and keys; points as .csv/.npz or a figure");
  auto opts = std::make_shared<CommonOptions>();
  auto g = std::make_shared<GeometryOptions>();
  addCommonOptions(*cmd, *opts);
  cmd->add_option("--out", g->out, "Output: .csv (kind,index,token,x,y), .npz, or a figure .png/.svg/.pdf")->required();
  cmd->add_option("--head", g->head, "Head, 1-based")->capture_default_str();
  cmd->add_option("--query", g->query, "Figure: query (0-based) joined to its top keys; -1 none")->capture_default_str();
  cmd->add_option("--top-k", g->topK, "Figure: how many top keys to join")->capture_default_str();
  cmd->add_option("--size", g->size, "Figure: pixel size WxH")->capture_default_str();
  cmd->add_option("--dpi", g->dpi, "Figure: resolution")->capture_default_str();
  cmd->add_flag("--force", g->force, "Overwrite an existing output file");
  return [cmd, opts, g, argc, argv]() -> int {
    if (!cmd->parsed()) return -1;
    return runGeometry(*opts, *g, argc, argv);
  };
}

}  // namespace attn::cli
