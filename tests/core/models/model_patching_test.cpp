// Activation patching (core/attn/models/patching/) on the small random causal fixtures
// against reference_patch.npz (tests/scripts/gen_patch_fixtures.py: the plain-PyTorch
// forwards of gen_model_fixtures.py with each activation replaced by the clean run's),
// and the properties any patching must have, checked on the model itself.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "attn/io/npy_reader.h"
#include "attn/models/model.h"
#include "attn/models/patching/activation_patching.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

using attn::test::loadNpz;
using attn::test::modelDir;

Encoding patchIds(const NpyArray& a) {
  Encoding e;
  for (float v : a.values.data) e.ids.push_back(static_cast<int>(v));
  e.tokens.resize(e.ids.size());
  return e;
}

double patchMaxDiff(const Mat& got, const NpyArray& want) {
  EXPECT_EQ(want.shape, (std::vector<int64_t>{got.rows(), got.cols()}));
  double worst = 0;
  for (Eigen::Index r = 0; r < got.rows(); ++r)
    for (Eigen::Index c = 0; c < got.cols(); ++c)
      worst = std::max(worst, std::abs(static_cast<double>(got(r, c)) -
                                       want.values.data[static_cast<size_t>(r * got.cols() + c)]));
  return worst;
}

struct PatchFixture {
  std::shared_ptr<const Model> model;
  std::map<std::string, NpyArray> ref;
  Encoding clean, corrupt;
  int target = 0, foil = 0;
};

PatchFixture loadPatchFixture(const std::string& name) {
  PatchFixture f;
  auto model = Model::open(modelDir(name));
  EXPECT_TRUE(model.ok()) << model.error().message;
  if (!model) return f;
  f.model = *model;
  f.ref = loadNpz(modelDir(name) + "/reference_patch.npz");
  f.clean = patchIds(f.ref.at("clean_ids"));
  f.corrupt = patchIds(f.ref.at("corrupt_ids"));
  f.target = static_cast<int>(f.ref.at("target").values.data.at(0));
  f.foil = static_cast<int>(f.ref.at("foil").values.data.at(0));
  return f;
}

class ModelPatchingReference : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelPatchingReference, MatchesPlainPyTorchReference) {
  const PatchFixture f = loadPatchFixture(GetParam());
  ASSERT_TRUE(f.model);
  auto got = f.model->patch(f.clean, f.corrupt, f.target, f.foil, PatchingOptions{});
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_NEAR(got->cleanDiff, f.ref.at("clean_diff").values.data.at(0), 1e-4);
  EXPECT_NEAR(got->corruptDiff, f.ref.at("corrupt_diff").values.data.at(0), 1e-4);
  const int L = f.model->info().layers, H = f.model->info().heads, n = f.clean.size();
  ASSERT_EQ(got->residual.rows(), L);
  ASSERT_EQ(got->residual.cols(), n);
  ASSERT_EQ(got->heads.cols(), H);
  EXPECT_LE(patchMaxDiff(got->residual, f.ref.at("residual")), 1e-4);
  EXPECT_LE(patchMaxDiff(got->heads, f.ref.at("heads")), 1e-4);
  EXPECT_LE(patchMaxDiff(got->mlp, f.ref.at("mlp")), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(CausalFixtures, ModelPatchingReference, ::testing::Values("gpt2", "llama", "qwen2"));

// A property that holds whatever the weights: layer 0's input at position p is the
// token's embedding (plus its position's), so where the two texts have the same token
// the patch replaces a row by itself and recovers exactly nothing.
TEST(ModelPatching, PositionsWhereTheTextsAgreeRecoverNothingAtLayerZero) {
  const PatchFixture f = loadPatchFixture("gpt2");
  ASSERT_TRUE(f.model);
  PatchingOptions opt;
  opt.heads = opt.mlp = false;
  auto got = f.model->patch(f.clean, f.corrupt, f.target, f.foil, opt);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(got->heads.size(), 0);
  EXPECT_EQ(got->mlp.size(), 0);
  for (int p = 0; p < f.clean.size(); ++p)
    if (f.clean.ids[static_cast<size_t>(p)] == f.corrupt.ids[static_cast<size_t>(p)])
      EXPECT_NEAR(got->residual(0, p), 0.0, 1e-5) << "position " << p;
}

TEST(ModelPatching, RefusesWhatItCannotCompare) {
  const PatchFixture f = loadPatchFixture("gpt2");
  ASSERT_TRUE(f.model);
  Encoding shorter = f.corrupt;
  shorter.ids.pop_back();
  shorter.tokens.pop_back();
  auto r = f.model->patch(f.clean, shorter, f.target, f.foil, PatchingOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("same number"), std::string::npos) << r.error().message;
  r = f.model->patch(f.clean, f.clean, f.target, f.foil, PatchingOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("nothing for patching to recover"), std::string::npos)
      << r.error().message;
  r = f.model->patch(f.clean, f.corrupt, f.target, f.target, PatchingOptions{});
  ASSERT_FALSE(r.ok());
  r = f.model->patch(f.clean, f.corrupt, f.model->info().vocabSize, f.foil, PatchingOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("outside the vocabulary"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("config.json"), std::string::npos) << r.error().message;

  auto bert = Model::open(modelDir("bert"));
  ASSERT_TRUE(bert.ok()) << bert.error().message;
  Encoding e = f.clean;
  for (int& id : e.ids) id %= (*bert)->info().vocabSize;
  r = (*bert)->patch(e, e, 1, 2, PatchingOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("causal language model"), std::string::npos) << r.error().message;
}

TEST(ModelPatching, CancelStopsTheSweep) {
  const PatchFixture f = loadPatchFixture("gpt2");
  ASSERT_TRUE(f.model);
  int calls = 0;
  auto r = f.model->patch(f.clean, f.corrupt, f.target, f.foil, PatchingOptions{},
                          [&calls](double, std::string_view) { return ++calls < 5; });
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cancelled"), std::string::npos);
  EXPECT_EQ(calls, 5);
}

}  // namespace
}  // namespace attn::models
