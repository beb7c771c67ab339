// End-to-end: `run --model DIR --image FILE` on the small random DINOv2 folder (its 4 x 4
// position table interpolated to the image's 5 x 5 grid) and the CLIP folder (its vision tower
// only, pooler_output written), against the plain-PyTorch references of
// tests/scripts/gen_vision_fixtures_dino_clip.py; `info` says what runs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

std::string dinoScene() { return std::string(ATTN_FIXTURE_DIR) + "/vision/scene.ppm"; }

TEST(CliDinoClip, Dinov2RunWritesTheInterpolatedReferenceMaps) {
  const auto dir = scratchDir("image_dinov2");
  const auto out = (dir / "dino.npz").string();
  const auto r = runCli({"run", "--model", modelDir("dinov2"), "--image", dinoScene(), "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  auto got = loadNpz(out);
  auto ref = loadNpz(modelDir("dinov2") + "/reference.npz");
  ASSERT_TRUE(got.count("weights") && got.count("pixel_values") && got.count("tokens"));
  const auto& w = got.at("weights").values;
  ASSERT_EQ(w.shape, (std::vector<int64_t>{2, 4, 26, 26}));
  EXPECT_LE(maxAbsDiff(w.data.data(), ref.at("attn").values.data, 0, w.data.size()), 1e-4);
  const auto& px = got.at("pixel_values").values;
  ASSERT_EQ(px.shape, (std::vector<int64_t>{3, 40, 40}));
  EXPECT_LE(maxAbsDiff(px.data.data(), ref.at("pixel_values").values.data, 0, px.data.size()), 1e-5);
  const auto& tokens = got.at("tokens").strings;
  ASSERT_EQ(tokens.size(), 26u);  // [CLS] + a 5 x 5 grid of 8-pixel patches of the 40-pixel crop
  EXPECT_EQ(tokens[0], "[CLS]");
  EXPECT_EQ(tokens[1], "r0c0");
  EXPECT_EQ(tokens[25], "r4c4");
  EXPECT_FALSE(got.count("labels_top5"));

  const auto info = runCli({"info", modelDir("dinov2")});
  ASSERT_EQ(info.status, 0) << info.err;
  EXPECT_NE(info.out.find("interpolated bicubically"), std::string::npos) << info.out;
}

TEST(CliDinoClip, ClipFolderRunsItsVisionTower) {
  const auto dir = scratchDir("image_clip");
  const auto out = (dir / "clip.npz").string();
  const auto r = runCli({"run", "--model", modelDir("clip"), "--image", dinoScene(), "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  auto got = loadNpz(out);
  auto ref = loadNpz(modelDir("clip") + "/reference.npz");
  const auto& w = got.at("weights").values;
  ASSERT_EQ(w.shape, ref.at("attn").values.shape);
  EXPECT_LE(maxAbsDiff(w.data.data(), ref.at("attn").values.data, 0, w.data.size()), 1e-4);
  ASSERT_TRUE(got.count("pooler_output"));
  EXPECT_LE(maxAbsDiff(got.at("pooler_output").values.data.data(), ref.at("pooled").values.data, 0, 64),
            1e-4);
  const auto info = runCli({"info", modelDir("clip")});
  ASSERT_EQ(info.status, 0) << info.err;
  EXPECT_NE(info.out.find("the vision tower only"), std::string::npos) << info.out;
}

// DINOv2 with registers on a 24 x 40 crop: metrics see the 3 x 5 grid after the [CLS] and two
// register tokens, and export draws the overlay of the non-square grid.
TEST(CliDinoClip, RegistersModelMetricsAndOverlayOnANonSquareGrid) {
  const auto r = runCli({"metrics", "--model", modelDir("dinov2_reg"), "--image", dinoScene(), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["image"]["grid_rows"], 3);
  EXPECT_EQ(doc["image"]["grid_cols"], 5);
  EXPECT_EQ(doc["image"]["prefix_tokens"], 3);
  EXPECT_EQ(doc["mean_attention_distance_px"].size(), 2u);
  const auto dir = scratchDir("image_dinov2_reg");
  const auto png = (dir / "rollout.png").string();
  const auto e = runCli({"export", "--model", modelDir("dinov2_reg"), "--image", dinoScene(), "--view",
                         "image", "--overlay", "rollout", "--layer", "2", "--out", png});
  if (e.err.find("no figure renderer") != std::string::npos)
    GTEST_SKIP() << "a build without the GUI cannot draw";
  ASSERT_EQ(e.status, 0) << e.err;
  const std::string bytes = readFile(png);
  ASSERT_GT(bytes.size(), 100u);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
}

}  // namespace
}  // namespace attn::test
