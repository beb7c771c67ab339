// Model::open + preprocessImage + runImage on the small random ViT
// (ViTForImageClassification) and DeiT (DeiTForImageClassificationWithTeacher)
// folders tests/scripts/gen_vision_fixtures.py writes, against its plain-PyTorch
// port of the Hugging Face code (checked there against float64 numpy) and its numpy
// port of Pillow's resampling, on the committed test image.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "attn/models/model.h"
#include "attn/vision/image_pixels.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

using attn::test::loadNpz;
using attn::test::maxAbsDiff;
using attn::test::modelDir;

std::string sceneImage() { return std::string(ATTN_FIXTURE_DIR) + "/vision/scene.ppm"; }

class VitReference : public ::testing::TestWithParam<std::string> {};

TEST_P(VitReference, PixelsEveryMapHiddenStateAndLabelMatch) {
  const std::string name = GetParam();
  auto model = Model::open(modelDir(name));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const Model& m = **model;
  const ModelInfo& info = m.info();
  EXPECT_TRUE(info.vision);
  EXPECT_FALSE(info.causal);
  EXPECT_EQ(info.family, Family::Vit);
  EXPECT_EQ(info.labels, 10);
  const int prefix = name == "deit" ? 2 : 1;
  EXPECT_EQ(info.prefixTokens, prefix);
  auto ref = loadNpz(modelDir(name) + "/reference.npz");
  ASSERT_TRUE(ref.count("attn"));

  auto image = vision::readImageFile(sceneImage());
  ASSERT_TRUE(image.ok()) << image.error().message;
  auto px = m.preprocessImage(*image, sceneImage());
  ASSERT_TRUE(px.ok()) << px.error().message;
  const auto& wantPx = ref.at("pixel_values").values;
  ASSERT_EQ(wantPx.shape, (std::vector<int64_t>{px->channels, px->height, px->width}));
  EXPECT_LE(maxAbsDiff(px->values.data(), wantPx.data, 0, px->values.size()), 1e-5);

  RunOptions opt;
  opt.keepHiddenStates = true;
  auto run = m.runImage(*px, opt);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const int n = prefix + 16;
  ASSERT_EQ(run->encoding.size(), n);
  EXPECT_EQ(run->encoding.tokens[0], "[CLS]");
  if (prefix == 2) {
    EXPECT_EQ(run->encoding.tokens[1], "[DIST]");
  }
  EXPECT_EQ(run->encoding.tokens[static_cast<size_t>(prefix)], "r0c0");
  EXPECT_EQ(run->encoding.tokens[static_cast<size_t>(prefix) + 5], "r1c1");
  EXPECT_EQ(run->encoding.tokens.back(), "r3c3");

  const auto& attn = ref.at("attn").values;
  ASSERT_EQ(attn.shape, (std::vector<int64_t>{2, 4, n, n}));
  ASSERT_EQ(run->layers.size(), 2u);
  double worst = 0;
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 4; ++h) {
      const Mat& w = run->layers[static_cast<size_t>(l)].heads[static_cast<size_t>(h)].weights;
      ASSERT_EQ(w.rows(), n);
      worst = std::max(worst, maxAbsDiff(w.data(), attn.data, static_cast<size_t>((l * 4 + h) * n * n),
                                         static_cast<size_t>(n * n)));
    }
  EXPECT_LE(worst, 1e-4);

  const auto& hidden = ref.at("hidden").values;
  ASSERT_EQ(run->hiddenStates.size(), 3u);
  for (size_t s = 0; s < 3; ++s)
    EXPECT_LE(maxAbsDiff(run->hiddenStates[s].data(), hidden.data, s * n * 64, n * 64), 1e-4)
        << "state " << s;
  EXPECT_LE(maxAbsDiff(run->finalHidden.data(), ref.at("last").values.data, 0, n * 64), 1e-4);

  const auto& logits = ref.at("logits").values.data;
  ASSERT_EQ(run->labelLogits.size(), 10);
  EXPECT_LE(maxAbsDiff(run->labelLogits.data(), logits, 0, 10), 1e-4);
  nlohmann::json cfg = nlohmann::json::parse(std::ifstream(modelDir(name) + "/config.json"));
  const auto& top = ref.at("top5").values.data;
  const auto& probs = ref.at("top5_probs").values.data;
  ASSERT_EQ(run->topLabels.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(run->topLabels[i].id, static_cast<int>(top[i]));
    EXPECT_EQ(run->topLabels[i].token,
              cfg["id2label"][std::to_string(static_cast<int>(top[i]))].get<std::string>());
    EXPECT_NEAR(run->topLabels[i].prob, probs[i], 1e-5);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, VitReference, ::testing::Values("vit", "deit"));

TEST(VitReference, TextAndImageGoToTheirOwnModels) {
  auto vit = Model::open(modelDir("vit"));
  ASSERT_TRUE(vit.ok()) << vit.error().message;
  auto enc = (*vit)->encode("a cat", std::nullopt, "--text");
  ASSERT_FALSE(enc.ok());
  EXPECT_NE(enc.error().message.find("vision model"), std::string::npos) << enc.error().message;
  auto bert = Model::open(modelDir("bert"));
  ASSERT_TRUE(bert.ok()) << bert.error().message;
  auto image = vision::readImageFile(sceneImage());
  ASSERT_TRUE(image.ok());
  auto px = (*bert)->preprocessImage(*image, "scene.ppm");
  ASSERT_FALSE(px.ok());
  EXPECT_NE(px.error().message.find("does not read images"), std::string::npos) << px.error().message;
}

}  // namespace
}  // namespace attn::models
