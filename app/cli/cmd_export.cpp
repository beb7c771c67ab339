// attnscope-cli export: draws a head's heatmap to a figure file, headless.
#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <regex>

#include "attn/engine.h"
#include "commands.h"
#include "options.h"

#ifdef ATTNSCOPE_HAVE_UI
#include <QApplication>

#include "attn_ui/colormaps.h"
#include "attn_ui/figure_export.h"
#endif

namespace attn::cli {

namespace {
struct ExportOptions {
  std::string out;
  std::string head = "1";
  std::string size = "800x700";
  int dpi = 96;
  std::string colormap = "viridis";
  bool force = false;
};
}  // namespace

Action addExportCommand(CLI::App& app, int argc, char** argv) {
  auto* cmd = app.add_subcommand("export", "Draw a heatmap figure (.png)");
  auto opts = std::make_shared<CommonOptions>();
  auto ex = std::make_shared<ExportOptions>();
  addCommonOptions(*cmd, *opts);
  cmd->add_option("--out", ex->out, "Figure file (.png)")->required();
  cmd->add_option("--head", ex->head, "Head to draw, 1-based")->capture_default_str();
  cmd->add_option("--size", ex->size, "Pixel size WxH")->capture_default_str();
  cmd->add_option("--dpi", ex->dpi, "Resolution written into the file")->capture_default_str();
  cmd->add_option("--colormap", ex->colormap, "viridis, magma, cividis, grayscale, diverging")
      ->capture_default_str();
  cmd->add_flag("--force", ex->force, "Overwrite an existing output file");
  return [cmd, opts, ex, argc, argv]() -> int {
    if (!cmd->parsed()) return -1;
    if (auto st = checkOverwrite(ex->out, ex->force); !st) return fail(st.error().message);
#ifndef ATTNSCOPE_HAVE_UI
    return fail("export: this build has no figure renderer (configured with ATTNSCOPE_BUILD_GUI=OFF)");
#else
    std::smatch m;
    static const std::regex sizeRe(R"((\d{1,5})x(\d{1,5}))");
    if (!std::regex_match(ex->size, m, sizeRe))
      return fail(fmt::format("--size: expected WxH in pixels, e.g. 800x600 (got '{}')", ex->size));
    const int w = std::stoi(m[1]), hgt = std::stoi(m[2]);
    if (ex->dpi < 10 || ex->dpi > 2400) return fail(fmt::format("--dpi: {} is out of range (10..2400)", ex->dpi));
    if (!attn::ui::isColormapNameStd(ex->colormap))
      return fail(fmt::format("--colormap: unknown colormap '{}'", ex->colormap));

    auto req = buildRequest(*opts);
    if (!req) return fail(req.error().message);
    auto res = runRequest(*opts, req->first, req->second);
    if (!res) return fail(res.error().message);
    int head = 0;
    try {
      head = std::stoi(ex->head);
    } catch (...) {
      return fail(fmt::format("--head: expected a head number (got '{}')", ex->head));
    }
    if (head < 1 || head > res->numHeads())
      return fail(fmt::format("--head: {} is out of range (1..{})", head, res->numHeads()));

    // Headless: draw with the offscreen platform, whatever the display.
    qputenv("QT_QPA_PLATFORM", "offscreen");
    int qargc = 1;
    QApplication qapp(qargc, argv);
    QStringList rows, cols;
    for (const auto& t : res->queryTokens) rows << QString::fromStdString(t);
    for (const auto& t : res->keyTokens) cols << QString::fromStdString(t);
    attn::ui::FigureOptions fo;
    fo.size = QSize(w, hgt);
    fo.dpi = ex->dpi;
    fo.colormap = QString::fromStdString(ex->colormap);
    fo.title = QString("Head %1 of %2 — %3 — mask: %4")
                   .arg(head)
                   .arg(res->numHeads())
                   .arg(QString::fromStdString(opts->mechanism), QString::fromStdString(req->second.mask.spec()));
    auto st = attn::ui::exportHeatmap(res->heads[static_cast<size_t>(head - 1)].weights, rows, cols,
                                      QString::fromStdString(ex->out), fo);
    if (!st) return fail(st.error().message);
    fmt::print("wrote {} ({}x{} px, head {})\n", ex->out, w, hgt, head);
    return 0;
#endif
  };
}

}  // namespace attn::cli
