// Gradient attribution (core/attn/models/gradients/) on the small random causal fixtures
// against reference_gradients.npz (tests/scripts/gen_gradient_fixtures.py: PyTorch autograd
// through the plain-PyTorch ports of the Hugging Face forwards), and the properties any
// such backward pass must have, checked on the model itself.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "attn/io/npy_reader.h"
#include "attn/models/experiments/head_experiments.h"
#include "attn/models/gradients/gradient_attribution.h"
#include "attn/models/model.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

using attn::test::loadNpz;
using attn::test::modelDir;

struct GradientFixture {
  std::shared_ptr<const Model> model;
  std::map<std::string, NpyArray> ref;
  Encoding enc;
  int target = 0, steps = 0, position = 0;
};

GradientFixture loadGradientFixture(const std::string& name) {
  GradientFixture f;
  auto model = Model::open(modelDir(name));
  EXPECT_TRUE(model.ok()) << model.error().message;
  if (!model) return f;
  f.model = *model;
  f.ref = loadNpz(modelDir(name) + "/reference_gradients.npz");
  for (float v : f.ref.at("ids").values.data) f.enc.ids.push_back(static_cast<int>(v));
  f.enc.tokens.resize(f.enc.ids.size());
  f.target = static_cast<int>(f.ref.at("target").values.data.at(0));
  f.steps = static_cast<int>(f.ref.at("ig_steps").values.data.at(0));
  f.position = static_cast<int>(f.ref.at("position").values.data.at(0));
  return f;
}

/// max |got - want| over the values, got given as consecutive floats.
double gradMaxDiff(const float* got, const NpyArray& want, size_t n) {
  EXPECT_EQ(want.values.data.size(), n);
  double worst = 0;
  for (size_t i = 0; i < n && i < want.values.data.size(); ++i)
    worst = std::max(worst, std::abs(static_cast<double>(got[i]) - want.values.data[i]));
  return worst;
}

double largestMagnitude(const NpyArray& a) {
  double m = 0;
  for (float v : a.values.data) m = std::max(m, std::abs(static_cast<double>(v)));
  return m;
}

class ModelGradientsReference : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelGradientsReference, MatchesPyTorchAutograd) {
  const GradientFixture f = loadGradientFixture(GetParam());
  ASSERT_TRUE(f.model);
  GradientOptions opt;
  opt.steps = f.steps;  // position left at -1: the last token, or BERT's first [MASK]
  auto got = f.model->gradients(f.enc, f.target, opt);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(got->position, f.position);
  opt.position = f.position;
  got = f.model->gradients(f.enc, f.target, opt);
  ASSERT_TRUE(got.ok()) << got.error().message;
  const auto n = static_cast<size_t>(f.enc.size());
  const int L = f.model->info().layers, H = f.model->info().heads;
  EXPECT_NEAR(got->targetLogit, f.ref.at("target_logit").values.data.at(0), 1e-4);
  EXPECT_NEAR(got->baselineLogit, f.ref.at("baseline_logit").values.data.at(0), 1e-4);
  ASSERT_EQ(got->inputGradient.rows(), static_cast<Eigen::Index>(n));
  EXPECT_LE(gradMaxDiff(got->inputGradient.data(), f.ref.at("input_grad"), got->inputGradient.size()), 1e-4);
  EXPECT_LE(gradMaxDiff(got->gradXInput.data(), f.ref.at("grad_x_input"), n), 1e-4);
  const NpyArray& ig = f.ref.at("integrated_gradients");
  EXPECT_LE(gradMaxDiff(got->integratedGradients.data(), ig, n), 1e-3 * std::max(1.0, largestMagnitude(ig)));
  ASSERT_EQ(got->attnGrad.size(), static_cast<size_t>(L * H));
  std::vector<float> flat;
  for (const Mat& m : got->attnGrad) flat.insert(flat.end(), m.data(), m.data() + m.size());
  EXPECT_LE(gradMaxDiff(flat.data(), f.ref.at("attn_grad"), flat.size()), 1e-4);
}

// Michel et al. 2019's gate gradients: the text's mean next-token loss and d loss / d head_mask
// at ones, against autograd through the port with Hugging Face's head_mask (the bertology
// example's recipe); `importance --method gradient` reports their magnitudes.
TEST_P(ModelGradientsReference, GateGradientsOfTheNextTokenLossMatchAutograd) {
  const GradientFixture f = loadGradientFixture(GetParam());
  ASSERT_TRUE(f.model);
  GradientOptions opt;
  opt.objective = GradientObjective::NextTokenLoss;
  opt.integrated = false;
  ImportanceOptions io;
  io.method = ImportanceMethod::GateGradient;
  io.curveSteps = 0;
  if (!f.model->info().causal) {
    auto r = f.model->gradients(f.enc, 0, opt);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("causal model"), std::string::npos) << r.error().message;
    auto imp = headImportance(*f.model, f.enc, io);
    ASSERT_FALSE(imp.ok());
    EXPECT_NE(imp.error().message.find("bidirectional"), std::string::npos) << imp.error().message;
    return;
  }
  auto got = f.model->gradients(f.enc, 0, opt);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(got->objective, GradientObjective::NextTokenLoss);
  EXPECT_NEAR(got->targetLogit, f.ref.at("next_token_loss").values.data.at(0), 1e-4);
  const Mat gates = headGateGradients(*got);
  const NpyArray& want = f.ref.at("head_gate_grad");
  ASSERT_EQ(gates.rows(), f.model->info().layers);
  ASSERT_EQ(gates.cols(), f.model->info().heads);
  EXPECT_LE(gradMaxDiff(gates.data(), want, static_cast<size_t>(gates.size())), 1e-4);
  EXPECT_GT(largestMagnitude(want), 1e-2);  // the heads matter: the comparison compares something
  auto imp = headImportance(*f.model, f.enc, io);
  ASSERT_TRUE(imp.ok()) << imp.error().message;
  EXPECT_NE(imp->measure.find("Michel"), std::string::npos) << imp->measure;
  ASSERT_EQ(imp->importance.size(), gates.size());
  for (Eigen::Index i = 0; i < gates.size(); ++i)
    EXPECT_NEAR(imp->importance.data()[i], std::abs(want.values.data[static_cast<size_t>(i)]), 1e-4) << i;
}

INSTANTIATE_TEST_SUITE_P(CausalFixtures, ModelGradientsReference,
                         ::testing::Values("gpt2", "llama", "llama3", "qwen2", "bert"));

// Properties that hold whatever the weights: a causal model's masked weights are exactly 0,
// so is their attention x gradient; in the last layer only the last query's output reaches the
// logit, so every other row of its maps is 0.
TEST(ModelGradients, AttentionGradientVanishesWhereNothingFlows) {
  const GradientFixture f = loadGradientFixture("gpt2");
  ASSERT_TRUE(f.model);
  auto got = f.model->gradients(f.enc, f.target, GradientOptions{});
  ASSERT_TRUE(got.ok()) << got.error().message;
  const int n = f.enc.size(), L = got->layers, H = got->heads;
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) {
      const Mat& m = got->attnGrad[static_cast<size_t>(l * H + h)];
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          if (j > i) {
            EXPECT_EQ(m(i, j), 0.0f) << l << " " << h << " " << i << " " << j;
          }
          if (l == L - 1 && i < n - 1) {
            EXPECT_EQ(m(i, j), 0.0f) << "last layer row " << i;
          }
        }
      if (l == L - 1) {
        EXPECT_GT(m.row(n - 1).cwiseAbs().sum(), 0.0f);
      }
    }
}

// Completeness (Sundararajan et al. 2017, proposition 1): the attributions add up to the
// logit's change from the baseline, as the Riemann sum converges.
TEST(ModelGradients, IntegratedGradientsAddUpToTheLogitChange) {
  const GradientFixture f = loadGradientFixture("gpt2");
  ASSERT_TRUE(f.model);
  GradientOptions opt;
  opt.steps = 512;
  opt.attention = false;
  auto got = f.model->gradients(f.enc, f.target, opt);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_TRUE(got->attnGrad.empty());
  const double change = got->targetLogit - got->baselineLogit;
  EXPECT_NEAR(got->integratedGradients.sum(), change, 0.005 * std::abs(change));
}

// GGUF files: llama.cpp's converter interleaves each q/k head's rows (undone on the product, so
// its transpose is applied on the way back), and quantized matrices are decoded a panel at a
// time in the backward too. The F32 file must give the Hugging Face folder's reference; the
// Q8_0 file what its twin with the same values dequantized to F32 gives.
TEST(ModelGradients, GgufFilesMatchTheirFloatCounterparts) {
  const GradientFixture f = loadGradientFixture("llama");
  ASSERT_TRUE(f.model);
  const std::string gguf = std::string(ATTN_FIXTURE_DIR) + "/gguf/models/";
  GradientOptions opt;
  opt.steps = 4;
  auto open = [&](const std::string& file) {
    auto m = Model::open(gguf + file);
    EXPECT_TRUE(m.ok()) << m.error().message;
    return m ? *m : nullptr;
  };
  const auto f32 = open("llama-F32.gguf"), q8 = open("llama-Q8_0.gguf"), q8ref = open("llama-Q8_0-ref.gguf");
  ASSERT_TRUE(f32 && q8 && q8ref);
  auto got = f32->gradients(f.enc, f.target, opt);
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_LE(gradMaxDiff(got->inputGradient.data(), f.ref.at("input_grad"), got->inputGradient.size()), 1e-4);
  auto a = q8->gradients(f.enc, f.target, opt), b = q8ref->gradients(f.enc, f.target, opt);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_GT((a->inputGradient - got->inputGradient).cwiseAbs().maxCoeff(), 1e-3);  // quantized: not F32's
  EXPECT_LE((a->inputGradient - b->inputGradient).cwiseAbs().maxCoeff(), 1e-4);
  EXPECT_LE((a->integratedGradients - b->integratedGradients).cwiseAbs().maxCoeff(), 1e-4);
}

TEST(ModelGradients, RefusesWhatItCannotExplain) {
  const GradientFixture f = loadGradientFixture("gpt2");
  ASSERT_TRUE(f.model);
  auto r = f.model->gradients(f.enc, f.model->info().vocabSize, GradientOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("outside the vocabulary"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("config.json"), std::string::npos) << r.error().message;
  GradientOptions zero;
  zero.steps = 0;
  r = f.model->gradients(f.enc, f.target, zero);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("steps"), std::string::npos) << r.error().message;
  r = f.model->gradients(Encoding{}, f.target, GradientOptions{});
  ASSERT_FALSE(r.ok());

  GradientOptions past;
  past.position = f.enc.size();
  r = f.model->gradients(f.enc, f.target, past);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("outside the text"), std::string::npos) << r.error().message;

  auto bert = Model::open(modelDir("bert_legacy"));  // a bare encoder: no masked-LM head
  ASSERT_TRUE(bert.ok()) << bert.error().message;
  Encoding e = f.enc;
  for (int& id : e.ids) id %= (*bert)->info().vocabSize;
  r = (*bert)->gradients(e, 1, GradientOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("GPT-2 and Llama families"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("without the masked-LM head"), std::string::npos) << r.error().message;
  auto mlm = Model::open(modelDir("bert"));
  ASSERT_TRUE(mlm.ok()) << mlm.error().message;
  r = (*mlm)->gradients(e, 1, GradientOptions{});  // no [MASK] in the ids, no position given
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no mask token"), std::string::npos) << r.error().message;
}

TEST(ModelGradients, CancelStopsIntegratedGradients) {
  const GradientFixture f = loadGradientFixture("gpt2");
  ASSERT_TRUE(f.model);
  int calls = 0;
  auto r = f.model->gradients(f.enc, f.target, GradientOptions{},
                              [&calls](double, std::string_view) { return ++calls < 3; });
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("cancelled"), std::string::npos);
  EXPECT_EQ(calls, 3);
}

}  // namespace
}  // namespace attn::models
