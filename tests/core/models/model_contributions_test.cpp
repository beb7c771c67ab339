// Contributions (core/attn/models/attribution/) on the small random fixtures against
// reference_contrib.npz (tests/scripts/gen_model_fixtures.py --step contrib: float64 from
// the plain-PyTorch forward's layer inputs, values and W_O, each decomposition checked to
// add up to the layer's output): attention norms, the residual + norm variant, ALTI and
// its rollout for GPT-2, BERT (with padding), Llama (GQA, BF16) and Qwen2 (b_V, one kv head).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "attn/io/npy_reader.h"
#include "attn/models/model.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

using attn::test::loadNpz;
using attn::test::modelDir;

Encoding contribEncoding(const std::map<std::string, NpyArray>& ref, int c) {
  Encoding e;
  for (float v : ref.at(fmt::format("ids_{}", c)).values.data) e.ids.push_back(static_cast<int>(v));
  for (float v : ref.at(fmt::format("type_ids_{}", c)).values.data) e.typeIds.push_back(static_cast<int>(v));
  for (float v : ref.at(fmt::format("mask_{}", c)).values.data)
    e.attention.push_back(static_cast<uint8_t>(v));
  e.tokens.resize(e.ids.size());
  return e;
}

/// max |got - want[offset ..]| over an N x N map.
double contribMapDiff(const Mat& got, const std::vector<float>& want, size_t offset) {
  return attn::test::maxAbsDiff(got.data(), want, offset, static_cast<size_t>(got.size()));
}

class ModelContributionsReference : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelContributionsReference, MatchesPlainPyTorchReference) {
  const std::string name = GetParam();
  auto model = Model::open(modelDir(name));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const auto ref = loadNpz(modelDir(name) + "/reference.npz");
  const auto want = loadNpz(modelDir(name) + "/reference_contrib.npz");
  const int L = (*model)->info().layers, H = (*model)->info().heads;
  int cases = 0;
  while (want.count(fmt::format("alti_{}", cases))) ++cases;
  ASSERT_GT(cases, 0);
  for (int c = 0; c < cases; ++c) {
    SCOPED_TRACE(fmt::format("{} case {}", name, c));
    const Encoding enc = contribEncoding(ref, c);
    const int n = enc.size();
    RunOptions opt;
    opt.contributions = true;
    auto run = (*model)->run(enc, opt);
    ASSERT_TRUE(run.ok()) << run.error().message;
    ASSERT_TRUE(run->contributions);
    const Contributions& got = *run->contributions;
    const auto& norms = want.at(fmt::format("attention_norms_{}", c));
    ASSERT_EQ(norms.shape, (std::vector<int64_t>{L, H, n, n}));
    const size_t nn = static_cast<size_t>(n) * n;
    ASSERT_EQ(got.attentionNorms.size(), static_cast<size_t>(L));
    for (int l = 0; l < L; ++l) {
      for (int h = 0; h < H; ++h)
        EXPECT_LE(contribMapDiff(got.attentionNorms[l][h], norms.values.data,
                                 (static_cast<size_t>(l) * H + h) * nn),
                  1e-4)
            << "attention_norms layer " << l << " head " << h;
      EXPECT_LE(contribMapDiff(got.attentionNormsResLn[l],
                               want.at(fmt::format("attention_norms_resln_{}", c)).values.data, l * nn),
                1e-4)
          << "attention_norms_resln layer " << l;
      EXPECT_LE(contribMapDiff(got.alti[l], want.at(fmt::format("alti_{}", c)).values.data, l * nn), 1e-4)
          << "alti layer " << l;
    }
    EXPECT_LE(contribMapDiff(got.altiRollout, want.at(fmt::format("alti_rollout_{}", c)).values.data, 0),
              1e-4);
  }
}

INSTANTIATE_TEST_SUITE_P(Families, ModelContributionsReference,
                         ::testing::Values("gpt2", "bert", "llama", "qwen2"));

class ModelContributions : public ::testing::Test {
 protected:
  void SetUp() override {
    auto m = Model::open(modelDir("gpt2"));
    ASSERT_TRUE(m.ok()) << m.error().message;
    model = *m;
    auto e = model->encode("The cat sat on the mat.", std::nullopt, "test");
    ASSERT_TRUE(e.ok());
    enc = *e;
  }
  std::shared_ptr<const Model> model;
  Encoding enc;
};

TEST_F(ModelContributions, OnlyWhenAskedAndTheRunKeepsOnlyWhatItsOptionsAsk) {
  RunOptions plain;
  plain.keepQkv = false;
  auto base = model->run(enc, plain);
  ASSERT_TRUE(base.ok());
  EXPECT_FALSE(base->contributions);
  RunOptions opt = plain;
  opt.contributions = true;
  opt.onlyLayer = 1;
  auto run = model->run(enc, opt);
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_TRUE(run->contributions);
  EXPECT_EQ(run->layers.size(), 1u);
  EXPECT_EQ(run->firstLayer, 1);
  EXPECT_TRUE(run->hiddenStates.empty());
  EXPECT_EQ(run->layers[0].heads[0].v.size(), 0);
  EXPECT_EQ(run->contributions->alti.size(), static_cast<size_t>(model->info().layers));
  // the same weights as the run without contributions
  EXPECT_TRUE(run->layers[0].heads[0].weights.isApprox(base->layers[1].heads[0].weights));
  EXPECT_TRUE(run->finalHidden.isApprox(base->finalHidden));
}

TEST_F(ModelContributions, AltiRowsSumToOneCausalZerosAndRolloutIsTheProduct) {
  RunOptions opt;
  opt.contributions = true;
  auto run = model->run(enc, opt);
  ASSERT_TRUE(run.ok());
  const Contributions& c = *run->contributions;
  const int n = enc.size();
  for (const Mat& a : c.alti) {
    EXPECT_LE((a.rowwise().sum().array() - 1.0f).abs().maxCoeff(), 1e-5);
    EXPECT_GE(a.minCoeff(), 0.0f);
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        EXPECT_EQ(a(i, j), 0.0f) << "a later token contributes in a causal model";
  }
  for (const auto& layer : c.attentionNorms)
    for (const Mat& m : layer) EXPECT_GE(m.minCoeff(), 0.0f);
  const Mat product = c.alti[1] * c.alti[0];
  EXPECT_TRUE(c.altiRollout.isApprox(product, 1e-5f));
  EXPECT_TRUE(altiRollout(c.alti, 0).isApprox(c.alti[0]));
  EXPECT_TRUE(altiRollout(c.alti, 99).isApprox(product, 1e-5f));
  EXPECT_EQ(altiRollout({}, 0).size(), 0);
}

TEST_F(ModelContributions, CancelledAndBadLayerAreClearErrors) {
  RunOptions opt;
  opt.contributions = true;
  auto cancelled = model->run(enc, opt, [](double f, std::string_view) { return f < 0.9; });
  ASSERT_FALSE(cancelled.ok());
  EXPECT_NE(cancelled.error().message.find("cancelled"), std::string::npos);
  opt.onlyLayer = 7;
  auto bad = model->run(enc, opt);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("layer 7"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace attn::models
