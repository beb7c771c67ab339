// End-to-end: `run --model FILE.gguf --quantization-effect` on the quantized GGUF fixtures. Its
// weights_full_precision are exactly a separate `--quantized-dot off` run's weights, its weights
// (the quantized run) a plain run's, weights_quantization_delta their difference, and
// quantization_max_delta each head's largest |difference|; a model whose products are all float
// (an F32 GGUF file, a Hugging Face folder) is refused with one line and no output file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "attn/io/npy_reader.h"
#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

std::string quantFixture(const std::string& name) {
  return std::string(ATTN_FIXTURE_DIR) + "/gguf/models/" + name;
}

const char* const kQuantText = "When Mary and John went to the store, John gave a drink to";

std::vector<NpyArray> runAndRead(const std::string& out, std::vector<std::string> args) {
  args.insert(args.end(), {"--text", kQuantText, "--out", out});
  const auto r = runCli(args);
  EXPECT_EQ(r.status, 0) << r.err;
  auto z = readNpzFile(out);
  EXPECT_TRUE(z.ok()) << (z.ok() ? "" : z.error().message);
  return z.ok() ? std::move(*z) : std::vector<NpyArray>{};
}

class CliQuantizationEffect : public ::testing::TestWithParam<std::string> {};

TEST_P(CliQuantizationEffect, FullPrecisionIsTheFloatRunAndTheDeltaTheDifference) {
  const std::string model = quantFixture(GetParam());
  const auto dir = scratchDir("quant_effect_" + GetParam());
  const auto effect =
      runAndRead((dir / "e.npz").string(), {"run", "--model", model, "--quantization-effect"});
  const auto plain = runAndRead((dir / "q.npz").string(), {"run", "--model", model});
  const auto off = runAndRead((dir / "f.npz").string(), {"run", "--model", model, "--quantized-dot", "off"});
  const auto* w = member(effect, "weights");
  const auto* full = member(effect, "weights_full_precision");
  const auto* delta = member(effect, "weights_quantization_delta");
  const auto* largest = member(effect, "quantization_max_delta");
  const auto* kl = member(effect, "quantization_kl");
  const auto* wPlain = member(plain, "weights");
  const auto* wOff = member(off, "weights");
  ASSERT_TRUE(w && full && delta && largest && kl && wPlain && wOff);
  ASSERT_EQ(w->shape.size(), 4u);
  EXPECT_EQ(full->shape, w->shape);
  EXPECT_EQ(delta->shape, w->shape);
  EXPECT_EQ(largest->shape, (std::vector<int64_t>{w->shape[0], w->shape[1]}));
  EXPECT_EQ(full->values.data, wOff->values.data) << "full precision = a --quantized-dot off run";
  EXPECT_EQ(w->values.data, wPlain->values.data) << "weights = the default (quantized) run";
  const size_t cells = static_cast<size_t>(w->shape[2] * w->shape[3]);
  float worst = 0;
  for (size_t head = 0; head < largest->values.data.size(); ++head) {
    float m = 0;
    for (size_t i = head * cells; i < (head + 1) * cells; ++i) {
      const float d = wPlain->values.data[i] - wOff->values.data[i];
      ASSERT_EQ(delta->values.data[i], d) << "cell " << i;
      m = std::max(m, std::abs(d));
    }
    EXPECT_EQ(largest->values.data[head], m) << "head " << head;
    worst = std::max(worst, m);
  }
  EXPECT_GT(worst, 0.0f);
  ASSERT_EQ(kl->values.data.size(), 1u);
  EXPECT_GT(kl->values.data[0], 0.0f);
}

INSTANTIATE_TEST_SUITE_P(GgufFixtures, CliQuantizationEffect,
                         ::testing::Values("llama-Q8_0.gguf", "qwen2-Q8_0.gguf", "llama256-Q4_K_M.gguf"));

TEST(CliQuantizationEffectSummary, PrintsTheLargestDifferenceAndTheKl) {
  const auto out = (scratchDir("quant_effect_print") / "e.npz").string();
  const auto r = runCli({"run", "--model", quantFixture("llama256-Q4_K_M.gguf"), "--quantization-effect",
                         "--text", kQuantText, "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("quantization effect: Q4_K, Q6_K products on 8-bit activations"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("largest |quantized - full precision| "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("KL(full precision || quantized) "), std::string::npos) << r.out;
}

TEST(CliQuantizationEffectSummary, FloatModelsAreRefusedWithOneLine) {
  for (const std::string& model : {quantFixture("llama-F32.gguf"), modelDir("llama")}) {
    SCOPED_TRACE(model);
    const auto out = (scratchDir("quant_effect_refused") / "e.npz").string();
    const auto r =
        runCli({"run", "--model", model, "--quantization-effect", "--text", "hello", "--out", out});
    EXPECT_NE(r.status, 0);
    EXPECT_EQ(
        r.err.rfind("attnscope-cli: error: " + model + ": no product of this model runs on quantized", 0), 0u)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

}  // namespace
}  // namespace attn::test
