// End-to-end: attention over an image's patches: `run --image` with
// the window2d mask and sinusoidal2d positions, the image figure, and one-line
// errors for bad images and options. The expected cells come from the grid
// geometry written here, not from core.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "attn/io/npy_reader.h"
#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

// A 12 x 16 binary PPM with a colour gradient: 3 x 4 patches of 4 pixels.
std::string writePpm(const std::filesystem::path& dir) {
  std::string bytes = "P6\n16 12\n255\n";
  for (int y = 0; y < 12; ++y)
    for (int x = 0; x < 16; ++x) {
      bytes += static_cast<char>(y * 20);
      bytes += static_cast<char>(x * 15);
      bytes += static_cast<char>((x * y) % 256);
    }
  const auto path = (dir / "grad.ppm").string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(CliImage, Window2dKeepsExactlyThePatchNeighbourhood) {
  const auto dir = scratchDir("image_run");
  const auto img = writePpm(dir);
  const auto out = (dir / "r.npz").string();
  const auto r = runCli({"run", "--image", img, "--patch", "4", "--heads", "2", "--mask", "window2d:1", "--pos",
                         "sinusoidal2d", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  auto z = readNpzFile(out);
  ASSERT_TRUE(z.ok()) << z.error().message;
  bool sawWeights = false, sawTokens = false;
  for (const auto& a : *z) {
    if (a.name == "weights") {
      sawWeights = true;
      ASSERT_EQ(a.shape, (std::vector<int64_t>{2, 12, 12}));
      for (int h = 0; h < 2; ++h) {
        const Mat w(a.values.slice2d(h));
        for (int i = 0; i < 12; ++i) {
          EXPECT_NEAR(w.row(i).sum(), 1.0, 1e-5);
          for (int j = 0; j < 12; ++j) {
            const bool near = std::abs(i / 4 - j / 4) <= 1 && std::abs(i % 4 - j % 4) <= 1;
            if (near) {
              EXPECT_GT(w(i, j), 0.0f) << i << "," << j;
            } else {
              EXPECT_EQ(w(i, j), 0.0f) << i << "," << j;
            }
          }
        }
      }
    }
    if (a.name == "tokens") {
      sawTokens = true;
      ASSERT_EQ(a.strings.size(), 12u);
      EXPECT_EQ(a.strings[0], "r0c0");
      EXPECT_EQ(a.strings[6], "r1c2");
    }
  }
  EXPECT_TRUE(sawWeights);
  EXPECT_TRUE(sawTokens);
}

TEST(CliImage, ErrorsNameTheFileOrOptionAndWriteNothing) {
  const auto dir = scratchDir("image_errors");
  const auto img = writePpm(dir);
  const auto out = (dir / "r.npz").string();
  std::ofstream(dir / "bad.ppm", std::ios::binary) << "P6\n16 12\n255\n\x01\x02";
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  for (const Case& c : std::vector<Case>{
           {{"run", "--image", (dir / "missing.ppm").string(), "--out", out}, "missing.ppm"},
           {{"run", "--image", (dir / "bad.ppm").string(), "--out", out}, "truncated"},
           {{"run", "--image", img, "--patch", "20", "--out", out}, "larger than"},
           {{"run", "--image", img, "--patch", "4", "--mask", "window2d:1,0", "--out", out}, "grid columns"},
           {{"run", "--image", img, "--text", "a b", "--out", out}, "excludes"},
       }) {
    const auto r = runCli(c.args);
    EXPECT_NE(r.status, 0) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.says;
  }
}

TEST(CliImage, ExportsTheOverlayFigure) {
  const auto dir = scratchDir("image_export");
  const auto img = writePpm(dir);
  const auto png = (dir / "overlay.png").string();
  const auto r = runCli({"export", "--image", img, "--patch", "4", "--heads", "2", "--mask", "window2d:1", "--view",
                         "image", "--query", "5", "--size", "400x360", "--out", png});
  if (r.err.find("no figure renderer") != std::string::npos) GTEST_SKIP() << "a build without the GUI cannot draw";
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string bytes = readFile(png);
  ASSERT_GT(bytes.size(), 100u);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  const auto bad = runCli({"export", "--image", img, "--patch", "4", "--view", "image", "--query", "12", "--out",
                           (dir / "x.png").string()});
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("--query"), std::string::npos) << bad.err;
  const auto noImage =
      runCli({"export", "--text", "a b c", "--view", "image", "--out", (dir / "y.png").string()});
  EXPECT_NE(noImage.status, 0);
  EXPECT_NE(noImage.err.find("--image"), std::string::npos) << noImage.err;
}

// `run --model DIR --image FILE` on the ViT fixture: the file contract against the
// plain-PyTorch reference of tests/scripts/gen_vision_fixtures.py, and a truncated image
// refused with its name and no output file.
TEST(CliImage, VitModelOnAnImageWritesTheReferenceMaps) {
  const auto dir = scratchDir("image_vit");
  const auto out = (dir / "vit.npz").string();
  const std::string scene = std::string(ATTN_FIXTURE_DIR) + "/vision/scene.ppm";
  const auto r = runCli({"run", "--model", modelDir("vit"), "--image", scene, "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  auto got = loadNpz(out);
  auto ref = loadNpz(modelDir("vit") + "/reference.npz");
  ASSERT_TRUE(got.count("weights") && got.count("pixel_values") && got.count("tokens"));
  const auto& w = got.at("weights").values;
  ASSERT_EQ(w.shape, ref.at("attn").values.shape);
  EXPECT_LE(maxAbsDiff(w.data.data(), ref.at("attn").values.data, 0, w.data.size()), 1e-4);
  const auto& px = got.at("pixel_values").values;
  ASSERT_EQ(px.shape, ref.at("pixel_values").values.shape);
  EXPECT_LE(maxAbsDiff(px.data.data(), ref.at("pixel_values").values.data, 0, px.data.size()), 1e-5);
  const auto& tokens = got.at("tokens").strings;
  ASSERT_EQ(tokens.size(), 17u);  // [CLS] + a 4 x 4 grid of 8-pixel patches of the 32-pixel image
  EXPECT_EQ(tokens[0], "[CLS]");
  EXPECT_EQ(tokens[1], "r0c0");
  EXPECT_EQ(tokens[6], "r1c1");
  ASSERT_TRUE(got.count("labels_top5_probs"));
  const auto& probs = got.at("labels_top5_probs").values;
  EXPECT_LE(maxAbsDiff(probs.data.data(), ref.at("top5_probs").values.data, 0, 5), 1e-5);

  std::string bytes;
  {
    std::ifstream in(scene, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto cut = (dir / "cut.ppm").string();
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  const auto bad = (dir / "bad.npz").string();
  const auto e = runCli({"run", "--model", modelDir("vit"), "--image", cut, "--out", bad});
  EXPECT_NE(e.status, 0);
  EXPECT_NE(e.err.find("cut.ppm"), std::string::npos) << e.err;
  EXPECT_NE(e.err.find("truncated"), std::string::npos) << e.err;
  EXPECT_FALSE(std::filesystem::exists(bad));
}

// `metrics --model DIR --image FILE`: each head's mean attention distance in pixels from
// the reference maps and the 4 x 4 grid of 8-pixel patches worked out here; `export
// --view image` draws the model's overlay (head, rollout, mask) and refuses bad options.
TEST(CliImage, VisionModelMetricsAndOverlayFigure) {
  const std::string scene = std::string(ATTN_FIXTURE_DIR) + "/vision/scene.ppm";
  const auto r = runCli({"metrics", "--model", modelDir("vit"), "--image", scene, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_TRUE(doc.contains("mean_attention_distance_px")) << r.out.substr(0, 400);
  EXPECT_EQ(doc["image"]["grid_rows"], 4);
  EXPECT_EQ(doc["image"]["patch"], 8);
  auto ref = loadNpz(modelDir("vit") + "/reference.npz");
  const auto& attn = ref.at("attn").values;  // [2, 4, 17, 17]: [CLS] then 16 patches
  const auto& dist = doc["mean_attention_distance_px"];
  ASSERT_EQ(dist.size(), 2u);
  for (int l = 0; l < 2; ++l) {
    ASSERT_EQ(dist[static_cast<size_t>(l)].size(), 4u);
    for (int h = 0; h < 4; ++h) {
      double sum = 0;
      for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
          const double a = attn.data[((static_cast<size_t>(l) * 4 + h) * 17 + 1 + i) * 17 + 1 + j];
          sum += a * 8.0 * std::hypot(i / 4 - j / 4, i % 4 - j % 4);
        }
      EXPECT_NEAR(dist[static_cast<size_t>(l)][static_cast<size_t>(h)].get<double>(), sum / 16, 1e-3)
          << l << h;
    }
  }
  ASSERT_TRUE(doc.contains("labels_top5"));
  EXPECT_EQ(doc["labels_top5"].size(), 5u);

  const auto dir = scratchDir("image_vit_export");
  for (const char* overlay : {"head", "rollout", "mask"}) {
    const auto png = (dir / (std::string(overlay) + ".png")).string();
    const auto e =
        runCli({"export", "--model", modelDir("vit"), "--image", scene, "--view", "image", "--overlay",
                overlay, "--layer", "2", "--head", "3", "--query", "6", "--size", "420x460", "--out", png});
    if (e.err.find("no figure renderer") != std::string::npos)
      GTEST_SKIP() << "a build without the GUI cannot draw";
    ASSERT_EQ(e.status, 0) << e.err;
    const std::string bytes = readFile(png);
    ASSERT_GT(bytes.size(), 100u);
    EXPECT_EQ(bytes.substr(1, 3), "PNG");
  }
  for (const auto& [args, says] :
       std::vector<std::pair<std::vector<std::string>, std::string>>{{{"--overlay", "flow"}, "--overlay"},
                                                                     {{"--query", "17"}, "--query"},
                                                                     {{"--opacity", "2"}, "--opacity"}}) {
    std::vector<std::string> cmd{"export", "--model", modelDir("vit"),           "--image", scene, "--view",
                                 "image",  "--out",   (dir / "bad.png").string()};
    cmd.insert(cmd.end(), args.begin(), args.end());
    const auto e = runCli(cmd);
    EXPECT_NE(e.status, 0) << says;
    EXPECT_NE(e.err.find(says), std::string::npos) << e.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "bad.png"));
  }
}

}  // namespace
}  // namespace attn::test
