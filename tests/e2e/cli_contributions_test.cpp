// End-to-end: attnscope-cli run --model ... --contributions on the small fixtures:
// the four arrays of the file contract with their shapes (and with --layer), ALTI's
// rows summing to 1, norms >= 0, equality with Model::run in this process and with the
// plain-PyTorch reference (tests/scripts/gen_model_fixtures.py --step contrib).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "attn/io/npy_reader.h"
#include "attn/models/model.h"
#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

struct ContribCase {
  std::string text;
  std::optional<std::string> pair;
  int padTo = 0;
};

ContribCase contribCase(const std::string& model, int c) {
  std::ifstream f(modelDir(model) + "/reference_tokens.json");
  const auto doc = nlohmann::json::parse(f);
  const auto& j = doc["cases"][static_cast<size_t>(c)];
  ContribCase out;
  out.text = j["text"].get<std::string>();
  if (j["pair"].is_string()) out.pair = j["pair"].get<std::string>();
  out.padTo = j["pad_to"].get<int>();
  return out;
}

std::vector<NpyArray> runContributions(const std::string& model, const ContribCase& c, const std::string& tag,
                                       std::vector<std::string> extra = {}) {
  const auto out = (scratchDir("contrib_" + tag) / "r.npz").string();
  std::vector<std::string> a{"run",  "--model",         modelDir(model), "--text",
                             c.text, "--contributions", "--out",         out};
  if (c.pair) a.insert(a.end(), {"--key-text", *c.pair});
  if (c.padTo > 0) a.insert(a.end(), {"--pad-to", std::to_string(c.padTo)});
  a.insert(a.end(), extra.begin(), extra.end());
  const auto r = runCli(a);
  EXPECT_EQ(r.status, 0) << r.err;
  auto z = readNpzFile(out);
  EXPECT_TRUE(z.ok()) << (z ? "" : z.error().message);
  return z ? std::move(z).value() : std::vector<NpyArray>{};
}

double contribDiff(const std::vector<float>& a, const float* b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(static_cast<double>(a[i]) - b[i]));
  return m;
}

class CliContributions : public ::testing::TestWithParam<std::pair<std::string, int>> {};

TEST_P(CliContributions, ShapesPropertiesAndTheInProcessResult) {
  const auto [name, c] = GetParam();
  const ContribCase ref = contribCase(name, c);
  const auto z = runContributions(name, ref, fmt::format("{}{}", name, c));
  auto model = models::Model::open(modelDir(name));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const int L = (*model)->info().layers, H = (*model)->info().heads;
  auto enc = (*model)->encode(ref.text, ref.pair ? std::optional<std::string_view>(*ref.pair) : std::nullopt,
                              "t", ref.padTo);
  ASSERT_TRUE(enc.ok());
  const int n = enc->size();
  models::RunOptions opt;
  opt.contributions = true;
  auto run = (*model)->run(*enc, opt);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const models::Contributions& in = *run->contributions;

  const auto* norms = member(z, "attention_norms");
  const auto* resln = member(z, "attention_norms_resln");
  const auto* alti = member(z, "alti");
  const auto* roll = member(z, "alti_rollout");
  ASSERT_TRUE(norms && resln && alti && roll);
  EXPECT_EQ(norms->shape, (std::vector<int64_t>{L, H, n, n}));
  EXPECT_EQ(resln->shape, (std::vector<int64_t>{L, n, n}));
  EXPECT_EQ(alti->shape, (std::vector<int64_t>{L, n, n}));
  EXPECT_EQ(roll->shape, (std::vector<int64_t>{n, n}));
  for (float v : norms->values.data) EXPECT_GE(v, 0.0f);
  for (float v : resln->values.data) EXPECT_GE(v, 0.0f);
  const size_t nn = static_cast<size_t>(n) * n;
  for (size_t row = 0; row < static_cast<size_t>(L) * n; ++row) {
    double sum = 0;
    for (int j = 0; j < n; ++j) sum += alti->values.data[row * n + j];
    EXPECT_NEAR(sum, 1.0, 1e-5) << "alti row " << row;
  }
  // The CLI process and this one may run different engine copies (baseline, AVX2,
  // AVX-512) whose sums round differently: agreement to float rounding, not bits.
  constexpr double kSameRun = 1e-5;
  for (int l = 0; l < L; ++l) {
    for (int h = 0; h < H; ++h) {
      const std::vector<float> got(norms->values.data.begin() + (static_cast<ptrdiff_t>(l) * H + h) * nn,
                                   norms->values.data.begin() + (static_cast<ptrdiff_t>(l) * H + h + 1) * nn);
      EXPECT_LE(contribDiff(got, in.attentionNorms[l][h].data()), kSameRun);
    }
    const std::vector<float> a(alti->values.data.begin() + l * nn, alti->values.data.begin() + (l + 1) * nn);
    EXPECT_LE(contribDiff(a, in.alti[l].data()), kSameRun);
  }
  EXPECT_LE(contribDiff(roll->values.data, in.altiRollout.data()), kSameRun);

  // and the reference, where the CLI's tokens are the reference case's
  auto want = readNpzFile(modelDir(name) + "/reference_contrib.npz");
  ASSERT_TRUE(want.ok());
  const auto* wr = member(*want, fmt::format("alti_rollout_{}", c));
  ASSERT_NE(wr, nullptr);
  ASSERT_EQ(wr->shape, roll->shape);
  EXPECT_LE(contribDiff(wr->values.data, roll->values.data.data()), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CliContributions,
                         ::testing::Values(std::make_pair(std::string("gpt2"), 0),
                                           std::make_pair(std::string("bert"), 1),
                                           std::make_pair(std::string("llama"), 0)));

TEST(CliContributionsLayer, OneLayerDropsTheLayerAxisAndRollsOutThroughIt) {
  const ContribCase ref = contribCase("gpt2", 0);
  const auto all = runContributions("gpt2", ref, "all");
  const auto one = runContributions("gpt2", ref, "layer1", {"--layer", "1"});
  const auto *allAlti = member(all, "alti"), *oneAlti = member(one, "alti"),
             *oneNorms = member(one, "attention_norms");
  const auto* oneRoll = member(one, "alti_rollout");
  ASSERT_TRUE(allAlti && oneAlti && oneNorms && oneRoll);
  const int64_t n = allAlti->shape[1];
  EXPECT_EQ(oneAlti->shape, (std::vector<int64_t>{n, n}));
  EXPECT_EQ(oneNorms->shape.size(), 3u);
  const std::vector<float> first(allAlti->values.data.begin(), allAlti->values.data.begin() + n * n);
  EXPECT_EQ(contribDiff(first, oneAlti->values.data.data()), 0.0);
  EXPECT_EQ(contribDiff(first, oneRoll->values.data.data()), 0.0)
      << "the rollout through layer 1 is layer 1's ALTI";
}

TEST(CliContributionsLayer, WithoutAModelIsOneClearLine) {
  const auto out = (scratchDir("contrib_nomodel") / "r.npz").string();
  const auto r = runCli({"run", "--text", "a b c", "--contributions", "--out", out});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--contributions needs --model"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace attn::test
