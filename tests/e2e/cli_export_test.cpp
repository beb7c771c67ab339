// End-to-end: attnscope-cli export for every figure format, view and data format.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>

#include "cli_runner.h"

namespace attn::test {
namespace {

const char* kCliExportText = "The cat sat on the mat .";
const char* kChinese = "我 爱 我 的 猫";

uint32_t be32(const std::string& s, size_t off) {
  return (uint32_t(uint8_t(s[off])) << 24) | (uint32_t(uint8_t(s[off + 1])) << 16) |
         (uint32_t(uint8_t(s[off + 2])) << 8) | uint32_t(uint8_t(s[off + 3]));
}

size_t filesIn(const std::filesystem::path& dir) {
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(dir), {}));
}

TEST(CliExportFigure, A4At300DpiPngOfAllHeadsWithSharedScale) {
  ATTN_SKIP_WITHOUT_FIGURES();
  const auto dir = scratchDir("export_a4");
  const auto out = (dir / "grid.png").string();
  const auto r = runCli({"export", "--text", kCliExportText, "--head", "all", "--size", "a4", "--dpi", "300",
                         "--shared-scale", "--colormap", "magma", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string png = readFile(out);
  ASSERT_GT(png.size(), 33u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(be32(png, 16), 2480u);
  EXPECT_EQ(be32(png, 20), 1860u);
  // pHYs: 300 DPI = 11811 pixels per metre.
  const size_t phys = png.find("pHYs");
  ASSERT_NE(phys, std::string::npos);
  EXPECT_NEAR(be32(png, phys + 4), 11811u, 1);
  EXPECT_GT(png.size(), 60000u);  // four heatmaps with labels, not a blank page
  EXPECT_EQ(filesIn(dir), 1u);
}

TEST(CliExportFigure, SvgKeepsChineseTokensAsText) {
  ATTN_SKIP_WITHOUT_FIGURES();
  const auto dir = scratchDir("export_svg");
  const auto out = (dir / "h.svg").string();
  const auto r = runCli({"export", "--text", kChinese, "--head", "2", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string svg = readFile(out);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  for (const char* t : {">我<", ">爱<", ">猫<", ">Head 2 of 4"}) EXPECT_NE(svg.find(t), std::string::npos) << t;
}

TEST(CliExportFigure, PdfPageSizeFollowsSizeAndDpi) {
  ATTN_SKIP_WITHOUT_FIGURES();
  const auto dir = scratchDir("export_pdf");
  const auto out = (dir / "h.pdf").string();
  const auto r = runCli({"export", "--text", kCliExportText, "--size", "1500x1200", "--dpi", "300", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string pdf = readFile(out);
  EXPECT_EQ(pdf.substr(0, 5), "%PDF-");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(pdf, m, std::regex(R"(/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+))")));
  EXPECT_NEAR(std::stod(m[1]), 360.0, 1.0);  // 5 inches
  EXPECT_NEAR(std::stod(m[2]), 288.0, 1.0);  // 4 inches
}

TEST(CliExportFigure, EveryTeachingViewRenders) {
  ATTN_SKIP_WITHOUT_FIGURES();
  const auto dir = scratchDir("export_views");
  struct Case { std::vector<std::string> args; std::string file, needle; };
  for (const auto& c : std::vector<Case>{
           {{"--view", "token-lines", "--head", "all"}, "lines.svg", ">head 3<"},
           {{"--view", "step-through", "--query", "2", "--step", "6"}, "step.svg", "Softmax"},
           {{"--view", "compare", "--mask", "none", "--compare-mask", "causal"}, "cmp.svg", "B − A"},
           {{"--view", "compare", "--head", "1", "--compare-head", "3"}, "cmp2.png", ""},
           {{"--view", "compare", "--compare-exec", "performer"}, "cmp3.svg", "performer"},
           {{"--view", "metrics"}, "bars.svg", "mean entropy"},
           {{"--view", "metrics", "--measure", "confidence"}, "conf.svg", "confidence"}}) {
    const auto out = (dir / c.file).string();
    std::vector<std::string> args{"export", "--text", kCliExportText, "--out", out};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = runCli(args);
    ASSERT_EQ(r.status, 0) << c.file << ": " << r.err;
    const std::string body = readFile(out);
    EXPECT_GT(body.size(), 5000u) << c.file;
    if (!c.needle.empty()) {
      EXPECT_NE(body.find(c.needle), std::string::npos) << c.file;
    }
  }
}

TEST(CliExportData, WeightsCsvNpyNpzAndMetricsJson) {
  const auto dir = scratchDir("export_data");
  auto r = runCli({"export", "--text", "a b c", "--heads", "2", "--d-model", "8", "--what", "weights", "--out",
                   (dir / "w.csv").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string csv = readFile(dir / "w.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "head,query,query_token,key,key_token,weight");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 2 * 3 * 3);  // every head by default
  r = runCli({"export", "--text", "a b c", "--head", "2", "--what", "logits", "--out", (dir / "l.npy").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string npy = readFile(dir / "l.npy");
  EXPECT_NE(npy.find("'shape': (1, 3, 3)"), std::string::npos);
  r = runCli({"export", "--text", "a b c", "--what", "outputs", "--out", (dir / "o.npz").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(readFile(dir / "o.npz").find("outputs.npy"), std::string::npos);
  r = runCli({"export", "--text", "a b c", "--out", (dir / "m.json").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string json = readFile(dir / "m.json");
  EXPECT_NE(json.find("\"entropy_mean\""), std::string::npos);
  EXPECT_NE(json.find("\"argmax_key\""), std::string::npos);
  r = runCli({"export", "--text", "a b c", "--what", "metrics", "--out", (dir / "m.csv").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(readFile(dir / "m.csv").substr(0, 26), "head,query,query_token,ent");
}

TEST(CliExportErrors, RefusalsAreOneLineAndLeaveNoFile) {
  const auto dir = scratchDir("export_errors");
  struct Case { std::vector<std::string> args; std::string file, needle; bool figureOption = false; };
  for (const auto& c : std::vector<Case>{{{"--what", "weights"}, "w.png", "are written as"},
                                         {{}, "w.xlsx", ".png, .svg or .pdf", true},
                                         {{"--what", "weights"}, "w.json", "JSON holds metrics"},
                                         {{"--head", "9"}, "f.png", "--head: 9"},
                                         {{"--head", "two"}, "f.png", "--head"},
                                         {{"--view", "pie"}, "f.png", "--view", true},
                                         {{"--size", "10x10"}, "f.png", "out of range", true},
                                         {{"--dpi", "5"}, "f.png", "--dpi", true},
                                         {{"--view", "step-through", "--query", "99"}, "s.png", "--query", true},
                                         {{"--view", "compare", "--compare-mask", "zigzag"}, "c.png", "--compare-mask", true},
                                         {{"--view", "metrics", "--measure", "beauty"}, "m.png", "--measure", true}}) {
    // A CLI without the figure renderer refuses before it reads the figure's options.
    if (c.figureOption && !ATTN_CLI_DRAWS) continue;
    const auto out = (dir / c.file).string();
    std::vector<std::string> args{"export", "--text", kCliExportText, "--out", out};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = runCli(args);
    EXPECT_EQ(r.status, 1) << c.needle;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
    EXPECT_EQ(filesIn(dir), 0u) << c.file;
  }
  // Overwrite needs --force (shown on a figure, which a build without the GUI cannot draw).
  if (!ATTN_CLI_DRAWS) return;
  const auto out = (dir / "f.svg").string();
  ASSERT_EQ(runCli({"export", "--text", kCliExportText, "--out", out}).status, 0);
  auto r = runCli({"export", "--text", kCliExportText, "--out", out});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--force"), std::string::npos);
  EXPECT_EQ(runCli({"export", "--text", kCliExportText, "--out", out, "--force"}).status, 0);
}

}  // namespace
}  // namespace attn::test
