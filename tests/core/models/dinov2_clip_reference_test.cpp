// Model::open + preprocessImage + runImage on the small random DINOv2 (Dinov2Model, positions
// interpolated from a 4 x 4 to a 5 x 5 grid), DINOv2 with registers (SwiGLU, a 3 x 5 grid,
// antialiased interpolation), CLIPVisionModel and CLIPModel (its vision tower) folders
// tests/scripts/gen_vision_fixtures_dino_clip.py writes, against its plain-PyTorch ports of
// the Hugging Face code on the committed test image; and the folders' faults.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "attn/models/model.h"
#include "attn/vision/image_pixels.h"
#include "attn/vision/preprocessing/image_processor.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

namespace fs = std::filesystem;
using attn::test::loadNpz;
using attn::test::maxAbsDiff;
using attn::test::modelDir;

std::string dinoClipScene() { return std::string(ATTN_FIXTURE_DIR) + "/vision/scene.ppm"; }

struct VisionCase {
  std::string name;
  int prefix, rows, cols;
  std::string firstExtra;  // the token after [CLS] ("" when the patches follow at once)
};

void PrintTo(const VisionCase& c, std::ostream* os) { *os << c.name; }

class DinoClipReference : public ::testing::TestWithParam<VisionCase> {};

TEST_P(DinoClipReference, PixelsEveryMapAndHiddenStateMatch) {
  const VisionCase& vc = GetParam();
  auto model = Model::open(modelDir(vc.name));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const Model& m = **model;
  const ModelInfo& info = m.info();
  EXPECT_TRUE(info.vision);
  EXPECT_EQ(info.family, Family::Vit);
  EXPECT_EQ(info.labels, 0);
  EXPECT_EQ(info.prefixTokens, vc.prefix);
  EXPECT_FALSE(info.visionNote.empty());
  auto ref = loadNpz(modelDir(vc.name) + "/reference.npz");

  auto image = vision::readImageFile(dinoClipScene());
  ASSERT_TRUE(image.ok()) << image.error().message;
  auto px = m.preprocessImage(*image, dinoClipScene());
  ASSERT_TRUE(px.ok()) << px.error().message;
  const auto& wantPx = ref.at("pixel_values").values;
  ASSERT_EQ(wantPx.shape, (std::vector<int64_t>{px->channels, px->height, px->width}));
  EXPECT_LE(maxAbsDiff(px->values.data(), wantPx.data, 0, px->values.size()), 1e-5);

  RunOptions opt;
  opt.keepHiddenStates = true;
  auto run = m.runImage(*px, opt);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const int n = vc.prefix + vc.rows * vc.cols, d = 64;
  ASSERT_EQ(run->encoding.size(), n);
  EXPECT_EQ(run->encoding.tokens[0], "[CLS]");
  if (!vc.firstExtra.empty()) EXPECT_EQ(run->encoding.tokens[1], vc.firstExtra);
  EXPECT_EQ(run->encoding.tokens[static_cast<size_t>(vc.prefix)], "r0c0");
  EXPECT_EQ(run->encoding.tokens.back(), fmt::format("r{}c{}", vc.rows - 1, vc.cols - 1));

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
    EXPECT_LE(maxAbsDiff(run->hiddenStates[s].data(), hidden.data, s * n * d, static_cast<size_t>(n * d)),
              1e-4)
        << "state " << s;
  ASSERT_EQ(run->finalHidden.rows(), n);
  EXPECT_LE(maxAbsDiff(run->finalHidden.data(), ref.at("last").values.data, 0, static_cast<size_t>(n * d)),
            1e-4);
  if (ref.count("pooled")) {
    ASSERT_EQ(run->pooledOutput.size(), d);
    EXPECT_LE(maxAbsDiff(run->pooledOutput.data(), ref.at("pooled").values.data, 0, d), 1e-4);
  } else {
    EXPECT_EQ(run->pooledOutput.size(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, DinoClipReference,
                         ::testing::Values(VisionCase{"dinov2", 1, 5, 5, ""},
                                           VisionCase{"dinov2_reg", 3, 3, 5, "[REG0]"},
                                           VisionCase{"clip_vision", 1, 4, 4, ""},
                                           VisionCase{"clip", 1, 4, 4, ""}),
                         [](const auto& p) { return p.param.name; });

TEST(DinoClipReference, NotesSayWhatRuns) {
  auto dino = Model::open(modelDir("dinov2_reg"));
  ASSERT_TRUE(dino.ok()) << dino.error().message;
  EXPECT_NE((*dino)->info().visionNote.find("2 register tokens"), std::string::npos)
      << (*dino)->info().visionNote;
  EXPECT_NE((*dino)->info().visionNote.find("SwiGLU"), std::string::npos);
  EXPECT_NE((*dino)->info().visionNote.find("4x4 grid, interpolated"), std::string::npos);
  auto clip = Model::open(modelDir("clip"));
  ASSERT_TRUE(clip.ok()) << clip.error().message;
  EXPECT_EQ((*clip)->info().modelType, "clip");
  EXPECT_NE((*clip)->info().visionNote.find("vision tower only"), std::string::npos);
  // CLIPFeatureExtractor's integer size is the shortest edge (get_size_dict default_to_square=False).
  EXPECT_EQ((*clip)->imageProcessor().shortestEdge, 32);
}

// transformers' defaults for the keys a file leaves out, by image_processor_type.
TEST(DinoClipReference, ProcessorDefaultsFollowTheProcessorType) {
  auto clip =
      vision::parseImageProcessorConfig(R"({"image_processor_type": "CLIPImageProcessor"})", "p.json");
  ASSERT_TRUE(clip.ok()) << clip.error().message;
  EXPECT_EQ(clip->shortestEdge, 224);
  EXPECT_TRUE(clip->doCenterCrop);
  EXPECT_EQ(clip->cropHeight, 224);
  EXPECT_EQ(clip->resample, vision::Resampling::Bicubic);
  EXPECT_FLOAT_EQ(clip->mean[0], 0.48145466f);
  EXPECT_FLOAT_EQ(clip->std[2], 0.27577711f);
  auto bit = vision::parseImageProcessorConfig(
      R"({"image_processor_type": "BitImageProcessor", "size": 300})", "p.json");
  ASSERT_TRUE(bit.ok()) << bit.error().message;
  EXPECT_EQ(bit->shortestEdge, 300);  // an integer size: the shortest edge
  EXPECT_EQ(bit->cropWidth, 224);
  EXPECT_FLOAT_EQ(bit->mean[0], 0.485f);
  auto bitSquare = vision::parseImageProcessorConfig(
      R"({"image_processor_type": "BitImageProcessor", "size": {"height": 40, "width": 48}})", "p.json");
  ASSERT_TRUE(bitSquare.ok()) << bitSquare.error().message;
  EXPECT_EQ(bitSquare->shortestEdge, 0);
  EXPECT_EQ(bitSquare->width, 48);
  auto vit = vision::parseImageProcessorConfig(R"({"image_processor_type": "ViTImageProcessor", "size": 40})",
                                               "p.json");
  ASSERT_TRUE(vit.ok()) << vit.error().message;
  EXPECT_EQ(vit->shortestEdge, 0);  // get_size_dict(default_to_square=True): a square
  EXPECT_EQ(vit->height, 40);
  EXPECT_FLOAT_EQ(vit->mean[0], 0.5f);
}

/// A CLIP or DINOv2 checkpoint with a wrong image size is refused (no interpolation), while
/// DINOv2 runs at any multiple of the patch.
TEST(DinoClipReference, OnlyDinov2TakesOtherImageSizes) {
  auto clip = Model::open(modelDir("clip_vision"));
  ASSERT_TRUE(clip.ok()) << clip.error().message;
  vision::PixelTensor px;
  px.channels = 3, px.height = 40, px.width = 24;
  px.values.assign(3 * 40 * 24, 0.25f);
  auto bad = (*clip)->runImage(px);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("image_size 32x32"), std::string::npos) << bad.error().message;
  auto dino = Model::open(modelDir("dinov2"));
  ASSERT_TRUE(dino.ok()) << dino.error().message;
  auto run = (*dino)->runImage(px);
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(run->encoding.size(), 1 + 5 * 3);
  EXPECT_EQ(run->encoding.tokens.back(), "r4c2");
}

class DinoClipErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("attn_dino_clip_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path edited(const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
    const fs::path dst = root_ / name;
    fs::copy(modelDir(name), dst, fs::copy_options::recursive);
    nlohmann::json c = nlohmann::json::parse(std::ifstream(dst / "config.json"));
    edit(c);
    std::ofstream(dst / "config.json", std::ios::trunc) << c.dump(2);
    return dst;
  }
  static std::string openError(const fs::path& dir) {
    auto m = Model::open(dir.string());
    if (m.ok()) return "(opened)";
    EXPECT_EQ(m.error().message.find('\n'), std::string::npos) << m.error().message;
    return m.error().message;
  }
  fs::path root_;
};

TEST_F(DinoClipErrors, SwigluConfigWithoutItsWeights) {
  const fs::path dir = edited("dinov2", [](nlohmann::json& c) { c["use_swiglu_ffn"] = true; });
  EXPECT_EQ(openError(dir),
            (dir / "model.safetensors").string() +
                ": tensor 'encoder.layer.0.mlp.weights_in.weight' is missing (config.json: dinov2 "
                "with 2 layers, d_model 64)");
}

TEST_F(DinoClipErrors, PositionTableOfTheWrongSize) {
  const fs::path dir = edited("dinov2", [](nlohmann::json& c) { c["image_size"] = 40; });
  EXPECT_EQ(openError(dir),
            (dir / "model.safetensors").string() +
                ": tensor 'embeddings.position_embeddings' has shape [1, 17, 64] but config.json "
                "needs [1, 26, 64]");
  const fs::path clip = edited("clip_vision", [](nlohmann::json& c) { c["image_size"] = 24; });
  EXPECT_EQ(openError(clip),
            (clip / "model.safetensors").string() +
                ": tensor 'vision_model.embeddings.position_embedding.weight' has shape [17, 64] "
                "but config.json needs [10, 64]");
}

TEST_F(DinoClipErrors, ClipConfigFaults) {
  const fs::path dir = edited("clip", [](nlohmann::json& c) { c.erase("vision_config"); });
  EXPECT_EQ(openError(dir), (dir / "config.json").string() +
                                ": a clip config.json without 'vision_config': no image tower to run");
  const fs::path act = edited("clip_vision", [](nlohmann::json& c) { c["hidden_act"] = "gelu_fancy"; });
  EXPECT_EQ(openError(act),
            (act / "config.json").string() +
                ": hidden_act 'gelu_fancy' is not supported (gelu, gelu_new, gelu_pytorch_tanh, "
                "relu, silu, quick_gelu)");
  const fs::path regs = edited("dinov2_reg", [](nlohmann::json& c) { c["num_register_tokens"] = 3; });
  EXPECT_EQ(openError(regs),
            (regs / "model.safetensors").string() +
                ": tensor 'embeddings.register_tokens' has shape [1, 2, 64] but config.json needs "
                "[1, 3, 64]");
}

}  // namespace
}  // namespace attn::models
