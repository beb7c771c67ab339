// Gradient attribution of the encoder-decoder fixtures (gradients/seq2seq_gradient.h) against
// reference_gradients.npz (tests/scripts/gen_seq2seq_gradient_fixtures.py: float64 PyTorch
// autograd through the plain-PyTorch ports of Marian, BART, mBART, T5 and Flan-T5), and the
// properties forced decoding's backward must have, checked on the model itself.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "attn/models/seq2seq/seq2seq_model.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

using attn::test::loadNpz;
using attn::test::modelDir;

struct Seq2SeqGradientCase {
  std::shared_ptr<const Seq2SeqModel> model;
  std::map<std::string, NpyArray> ref;
  Encoding source;
  std::string targetText;
};

Seq2SeqGradientCase loadSeq2SeqGradientCase(const std::string& name) {
  Seq2SeqGradientCase f;
  auto model = Seq2SeqModel::open(modelDir(name));
  EXPECT_TRUE(model.ok()) << model.error().message;
  if (!model) return f;
  f.model = *model;
  f.ref = loadNpz(modelDir(name) + "/reference_gradients.npz");
  std::ifstream in(modelDir(name) + "/reference_tokens.json");
  const auto c = nlohmann::json::parse(in)["cases"][0];
  auto enc = f.model->encode(c["source"].get<std::string>(), "source");
  EXPECT_TRUE(enc.ok());
  if (enc) f.source = *enc;
  f.targetText = c["target"].get<std::string>();
  return f;
}

int refInt(const Seq2SeqGradientCase& f, const char* name) {
  return static_cast<int>(f.ref.at(name).values.data.at(0));
}

/// max |got - want| over consecutive floats, checking the count.
double seq2seqMaxDiff(const float* got, size_t n, const NpyArray& want) {
  EXPECT_EQ(want.values.data.size(), n);
  double worst = 0;
  for (size_t i = 0; i < n && i < want.values.data.size(); ++i)
    worst = std::max(worst, std::abs(static_cast<double>(got[i]) - want.values.data[i]));
  return worst;
}

/// The same over layer-major per-head maps against want [L, H, rows, cols].
double seq2seqMapsDiff(const std::vector<Mat>& maps, const NpyArray& want) {
  const auto& s = want.values.shape;
  EXPECT_EQ(s.size(), 4u);
  EXPECT_EQ(static_cast<int64_t>(maps.size()), s[0] * s[1]);
  std::vector<float> all;
  for (const Mat& m : maps) {
    EXPECT_EQ(m.rows(), s[2]);
    EXPECT_EQ(m.cols(), s[3]);
    all.insert(all.end(), m.data(), m.data() + m.size());
  }
  return seq2seqMaxDiff(all.data(), all.size(), want);
}

double seq2seqLargest(const NpyArray& a) {
  double m = 0;
  for (float v : a.values.data) m = std::max(m, std::abs(static_cast<double>(v)));
  return m;
}

class Seq2SeqGradientsReference : public ::testing::TestWithParam<std::string> {};

TEST_P(Seq2SeqGradientsReference, MatchesPyTorchAutograd) {
  const Seq2SeqGradientCase f = loadSeq2SeqGradientCase(GetParam());
  ASSERT_TRUE(f.model);
  GradientOptions opt;
  opt.steps = refInt(f, "ig_steps");
  auto run = f.model->gradients(f.source, f.targetText, "target", /*targetToken=*/-1, opt);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const auto& want = f.ref;
  std::vector<float> ids(run->targetIds.begin(), run->targetIds.end());
  EXPECT_EQ(ids, want.at("decoder_ids").values.data);
  std::vector<float> src(f.source.ids.begin(), f.source.ids.end());
  EXPECT_EQ(src, want.at("source_ids").values.data);
  const Seq2SeqGradientAttribution& g = run->attribution;
  EXPECT_EQ(g.target, refInt(f, "target"));  // the token the model predicts at the last row
  EXPECT_EQ(g.position, refInt(f, "position"));
  EXPECT_NEAR(g.targetLogit, want.at("target_logit").values.data.at(0), 1e-4);
  EXPECT_NEAR(g.baselineLogit, want.at("baseline_logit").values.data.at(0), 1e-4);
  // 1e-4, relative to the largest value beyond 1: Marian's gradients reach 1.6 (float32 error
  // 7e-5) and gradient x input sums d products with its inputs, the rows times sqrt(d_model) = 8.
  const NpyArray &gS = want.at("source_grad"), &gT = want.at("target_grad");
  EXPECT_LE(seq2seqMaxDiff(g.sourceGradient.data(), g.sourceGradient.size(), gS),
            1e-4 * std::max(1.0, seq2seqLargest(gS)));
  EXPECT_LE(seq2seqMaxDiff(g.targetGradient.data(), g.targetGradient.size(), gT),
            1e-4 * std::max(1.0, seq2seqLargest(gT)));
  const NpyArray &gxiS = want.at("grad_x_input_source"), &gxiT = want.at("grad_x_input_target");
  EXPECT_LE(seq2seqMaxDiff(g.gradXInputSource.data(), g.gradXInputSource.size(), gxiS),
            1e-4 * std::max(1.0, seq2seqLargest(gxiS)));
  EXPECT_LE(seq2seqMaxDiff(g.gradXInputTarget.data(), g.gradXInputTarget.size(), gxiT),
            1e-4 * std::max(1.0, seq2seqLargest(gxiT)));
  const std::pair<const char*, const Vec*> integrated[] = {
      {"integrated_gradients_source", &g.integratedSource},
      {"integrated_gradients_target", &g.integratedTarget}};
  for (const auto& [name, got] : integrated)
    EXPECT_LE(seq2seqMaxDiff(got->data(), got->size(), want.at(name)),
              1e-3 * std::max(1.0, seq2seqLargest(want.at(name))))
        << name;
  EXPECT_LE(seq2seqMapsDiff(g.attnGradEncoder, want.at("attn_grad_encoder")), 1e-4);
  EXPECT_LE(seq2seqMapsDiff(g.attnGradDecoder, want.at("attn_grad_decoder")), 1e-4);
  EXPECT_LE(seq2seqMapsDiff(g.attnGradCross, want.at("attn_grad_cross")), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Seq2SeqGradientsReference,
                         ::testing::Values("marian", "bart", "mbart", "t5", "flan_t5"));

TEST(Seq2SeqGradients, IntegratedGradientsAreComplete) {
  // Sundararajan et al. 2017, prop. 1: the attributions of both stacks sum to F(x) - F(0), up
  // to the Riemann sum's error, which shrinks with the steps.
  for (const char* name : {"bart"}) {
    const Seq2SeqGradientCase f = loadSeq2SeqGradientCase(name);
    ASSERT_TRUE(f.model);
    GradientOptions opt;
    opt.attention = false;
    opt.steps = 512;
    auto run = f.model->gradients(f.source, f.targetText, "target", -1, opt);
    ASSERT_TRUE(run.ok()) << run.error().message;
    const auto& g = run->attribution;
    const double change = g.targetLogit - g.baselineLogit;
    const double sum = g.integratedSource.sum() + g.integratedTarget.sum();
    EXPECT_NEAR(sum, change, 0.01 * std::abs(change)) << name;
  }
}

TEST(Seq2SeqGradients, AnEarlierRowSeesNoLaterTargetToken) {
  // Causal decoder self-attention: the logit at row p depends on target rows 0..p only, and the
  // decoder maps are zero above the diagonal; every source token may matter.
  const Seq2SeqGradientCase f = loadSeq2SeqGradientCase("bart");
  ASSERT_TRUE(f.model);
  GradientOptions opt;
  opt.integrated = false;
  opt.position = 3;
  auto run = f.model->gradients(f.source, f.targetText, "target", /*targetToken=*/7, opt);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const auto& g = run->attribution;
  EXPECT_EQ(g.target, 7);
  EXPECT_EQ(g.position, 3);
  EXPECT_EQ(g.targetGradient.bottomRows(g.targetGradient.rows() - 4).cwiseAbs().maxCoeff(), 0.0f);
  EXPECT_GT(g.targetGradient.topRows(4).cwiseAbs().maxCoeff(), 0.0f);
  EXPECT_GT(g.sourceGradient.cwiseAbs().maxCoeff(), 0.0f);
  for (const Mat& m : g.attnGradDecoder)
    for (Eigen::Index i = 0; i < m.rows(); ++i)
      for (Eigen::Index j = i + 1; j < m.cols(); ++j) ASSERT_EQ(m(i, j), 0.0f);
  EXPECT_EQ(g.integratedSource.size(), 0);
}

TEST(Seq2SeqGradients, BadRequestsAreNamedErrors) {
  const Seq2SeqGradientCase f = loadSeq2SeqGradientCase("t5");
  ASSERT_TRUE(f.model);
  GradientOptions opt;
  opt.position = 99;
  auto run = f.model->gradients(f.source, f.targetText, "target", -1, opt);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().message.find("position 99 is outside the decoder's"), std::string::npos)
      << run.error().message;
  opt.position = -1;
  opt.steps = 0;
  run = f.model->gradients(f.source, f.targetText, "target", -1, opt);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().message.find("1 to 4096 steps"), std::string::npos);
  opt.steps = 4;
  run = f.model->gradients(f.source, f.targetText, "target", 1 << 20, opt);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().message.find("outside the vocabulary"), std::string::npos);
  opt.objective = GradientObjective::NextTokenLoss;
  run = f.model->gradients(f.source, f.targetText, "target", -1, opt);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().message.find("one target logit"), std::string::npos);
  auto id = f.model->targetTokenId("Die Katze saß", "--target");
  ASSERT_FALSE(id.ok());
  EXPECT_NE(id.error().message.find("tokens for the target tokenizer"), std::string::npos);
  EXPECT_FALSE(f.model->targetTokenId("#-3", "--target").ok());
  auto one = f.model->targetTokenId("#5", "--target");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, 5);
}

}  // namespace
}  // namespace attn::models
