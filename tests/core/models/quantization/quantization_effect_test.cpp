// The quantization effect on the GGUF fixtures: its full-precision run is exactly a separate run
// with RunOptions::quantizedDot off, its quantized run the default one, each head's delta their
// difference and its KL the one computed here from the two runs' logits in double; models whose
// products are all float (an F32 file, a Q4_0 file, a Hugging Face folder) are refused by name.
#include "attn/models/quantization/quantization_effect.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attn::models {
namespace {

const std::string kGguf = std::string(ATTN_FIXTURE_DIR) + "/gguf/models/";

std::shared_ptr<const Model> openOrFail(const std::string& path) {
  auto m = Model::open(path);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? *m : nullptr;
}

/// KL(p || q) of the softmaxes of two logit rows, in double.
double klOfLogits(const Mat& a, const Mat& b, Eigen::Index row) {
  const auto logSoftmax = [row](const Mat& m) {
    std::vector<double> v(static_cast<size_t>(m.cols()));
    double top = -INFINITY, sum = 0;
    for (Eigen::Index j = 0; j < m.cols(); ++j) top = std::max(top, static_cast<double>(m(row, j)));
    for (Eigen::Index j = 0; j < m.cols(); ++j) sum += std::exp(m(row, j) - top);
    for (Eigen::Index j = 0; j < m.cols(); ++j) v[static_cast<size_t>(j)] = m(row, j) - top - std::log(sum);
    return v;
  };
  const auto p = logSoftmax(a), q = logSoftmax(b);
  double kl = 0;
  for (size_t j = 0; j < p.size(); ++j) kl += std::exp(p[j]) * (p[j] - q[j]);
  return kl;
}

class QuantizationEffectOn : public ::testing::TestWithParam<std::string> {};

TEST_P(QuantizationEffectOn, RunsAreTheTwoSettingsAndTheDeltaTheirDifference) {
  const auto model = openOrFail(kGguf + GetParam());
  ASSERT_NE(model, nullptr);
  auto enc =
      model->encode("When Mary and John went to the store, John gave a drink to", std::nullopt, "text");
  ASSERT_TRUE(enc.ok());
  auto effect = quantizationEffect(*model, *enc);
  ASSERT_TRUE(effect.ok()) << effect.error().message;
  RunOptions o;
  o.keepFullLogits = true;
  auto quantized = model->run(*enc, o);
  o.quantizedDot = false;
  auto full = model->run(*enc, o);
  ASSERT_TRUE(quantized.ok() && full.ok());
  ASSERT_EQ(effect->fullPrecision.layers.size(), full->layers.size());
  float largest = 0;
  int largestLayer = -1, largestHead = -1;
  for (size_t l = 0; l < full->layers.size(); ++l)
    for (size_t h = 0; h < full->layers[l].heads.size(); ++h) {
      const Mat& f = full->layers[l].heads[h].weights;
      const Mat& q = quantized->layers[l].heads[h].weights;
      EXPECT_EQ(effect->fullPrecision.layers[l].heads[h].weights, f) << "layer " << l << " head " << h;
      EXPECT_EQ(effect->quantized.layers[l].heads[h].weights, q) << "layer " << l << " head " << h;
      const Mat delta = quantizationDelta(*effect, l, h);
      ASSERT_EQ(delta.rows(), f.rows());
      float worst = 0;
      for (Eigen::Index i = 0; i < f.size(); ++i) {
        EXPECT_EQ(delta.data()[i], q.data()[i] - f.data()[i]);
        worst = std::max(worst, std::abs(q.data()[i] - f.data()[i]));
      }
      EXPECT_EQ(effect->comparison.weights[l][h].maxAbs, worst);
      if (worst > largest) {
        largest = worst;
        largestLayer = static_cast<int>(l);
        largestHead = static_cast<int>(h);
      }
    }
  EXPECT_EQ(effect->largestChange, largest);
  EXPECT_EQ(effect->largestLayer, largestLayer);
  EXPECT_EQ(effect->largestHead, largestHead);
  EXPECT_GT(largest, 1e-4f) << "8-bit activations move the maps of the random fixtures";
  EXPECT_LT(largest, 0.2f);
  const Eigen::Index last = enc->size() - 1;
  const double kl = klOfLogits(full->logits, quantized->logits, last);
  EXPECT_NEAR(effect->comparison.kl, kl, 1e-6 + 1e-4 * kl);
  EXPECT_GT(effect->comparison.kl, 0.0);
  EXPECT_EQ(effect->comparison.position, last);
  EXPECT_EQ(effect->quantized.logits.size(), 0) << "the logits were kept for the KL only";
}

INSTANTIATE_TEST_SUITE_P(GgufFixtures, QuantizationEffectOn,
                         ::testing::Values("llama-Q8_0.gguf", "qwen2-Q8_0.gguf", "llama256-Q4_K_M.gguf"));

TEST(QuantizationEffect, NamesTheQuantizedProductTypes) {
  const auto q8 = openOrFail(kGguf + "llama-Q8_0.gguf");
  const auto km = openOrFail(kGguf + "llama256-Q4_K_M.gguf");
  ASSERT_TRUE(q8 && km);
  EXPECT_EQ(q8->info().quantizedProductTypes, std::vector<std::string>{"Q8_0"});
  EXPECT_EQ(km->info().quantizedProductTypes, (std::vector<std::string>{"Q4_K", "Q6_K"}));
}

TEST(QuantizationEffect, ModelsWithOnlyFloatProductsAreRefused) {
  for (const std::string& path : {kGguf + "llama-F32.gguf", kGguf + "llama-Q4_0.gguf",
                                  std::string(ATTN_FIXTURE_DIR) + "/models/llama"}) {
    SCOPED_TRACE(path);
    const auto model = openOrFail(path);
    ASSERT_NE(model, nullptr);
    EXPECT_TRUE(model->info().quantizedProductTypes.empty());
    auto enc = model->encode("hello there", std::nullopt, "text");
    ASSERT_TRUE(enc.ok());
    auto effect = quantizationEffect(*model, *enc);
    ASSERT_FALSE(effect.ok());
    EXPECT_NE(effect.error().message.find("no product of this model runs on quantized activations"),
              std::string::npos)
        << effect.error().message;
    EXPECT_EQ(effect.error().message.find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace attn::models
