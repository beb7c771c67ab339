// End-to-end: `run --model` and `metrics --model` streamed (no N x N array) on
// the model fixtures. The maps written from the kept q/k are compared with the
// plain-PyTorch reference attentions of tests/scripts/gen_model_fixtures.py
// (reference.npz attn_<case>, [L, H, N, N]); a request over the memory budget
// and a text past max_position_embeddings are refused with their sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attn/io/npy_reader.h"
#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

std::string llamaCase0() {
  std::ifstream f(modelDir("llama") + "/reference_tokens.json");
  return nlohmann::json::parse(f)["cases"][0]["text"].get<std::string>();
}

/// reference attn_0 of the llama fixture, [L, H, N, N].
NpyArray llamaReference() {
  auto z = readNpzFile(modelDir("llama") + "/reference.npz");
  EXPECT_TRUE(z.ok());
  const auto* a = z ? member(*z, "attn_0") : nullptr;
  EXPECT_NE(a, nullptr);
  return a ? *a : NpyArray{};
}

float refAt(const NpyArray& a, int64_t l, int64_t h, int64_t i, int64_t j) {
  const auto& s = a.shape;
  return a.values.data[static_cast<size_t>(((l * s[1] + h) * s[2] + i) * s[3] + j)];
}

TEST(CliLongModel, RowsOfEveryMapMatchTheReference) {
  const NpyArray ref = llamaReference();
  ASSERT_EQ(ref.shape.size(), 4u);
  const int64_t L = ref.shape[0], H = ref.shape[1], n = ref.shape[2];
  const auto out = (scratchDir("long_rows") / "r.npz").string();
  const auto r = runCli({"run", "--model", modelDir("llama"), "--text", llamaCase0(), "--rows", "2:6",
                         "--qk-dtype", "f32", "--profile", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("streamed: no N x N array"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("q/k store:"), std::string::npos) << r.err;
  auto z = readNpzFile(out);
  ASSERT_TRUE(z.ok()) << z.error().message;
  const auto* w = member(*z, "weights");
  ASSERT_NE(w, nullptr);
  ASSERT_EQ(w->shape, (std::vector<int64_t>{L, H, 4, n}));
  float worst = 0;
  for (int64_t l = 0; l < L; ++l)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < n; ++j)
          worst =
              std::max(worst, std::abs(w->values.data[static_cast<size_t>(((l * H + h) * 4 + i) * n + j)] -
                                       refAt(ref, l, h, i + 2, j)));
  EXPECT_LE(worst, 1e-4f);  // as the materialized run's own check against the reference
  const auto* measures = member(*z, "measures");
  const auto* names = member(*z, "measure_names");
  const auto* entropy = member(*z, "entropy");
  ASSERT_TRUE(measures && names && entropy);
  EXPECT_EQ(entropy->shape, (std::vector<int64_t>{L, H, n}));
  ASSERT_EQ(measures->shape, (std::vector<int64_t>{L, H, static_cast<int64_t>(names->strings.size())}));
  // entropy_mean of layer 0 head 0 from the reference weights themselves.
  double hsum = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (const double p = refAt(ref, 0, 0, i, j); p > 0) hsum -= p * std::log(p);
  ASSERT_EQ(names->strings[0], "entropy_mean");
  EXPECT_NEAR(measures->values.data[0], hsum / static_cast<double>(n), 1e-4);
}

TEST(CliLongModel, PooledOverviewIsTheMeanOfTheReferenceBlocks) {
  const NpyArray ref = llamaReference();
  ASSERT_EQ(ref.shape.size(), 4u);
  const int64_t n = ref.shape[2], B = 4, side = (n + B - 1) / B;
  const auto out = (scratchDir("long_pool") / "r.npz").string();
  const auto r =
      runCli({"run", "--model", modelDir("llama"), "--text", llamaCase0(), "--layer", "2", "--head", "3",
              "--pool", "4", "--pool-mode", "mean", "--qk-dtype", "f32", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  auto z = readNpzFile(out);
  ASSERT_TRUE(z.ok()) << z.error().message;
  const auto* p = member(*z, "pooled");
  const auto* mode = member(*z, "pooling");
  ASSERT_TRUE(p && mode);
  EXPECT_EQ(mode->strings, std::vector<std::string>{"mean"});
  ASSERT_EQ(p->shape, (std::vector<int64_t>{1, 1, side, side}));
  for (int64_t I = 0; I < side; ++I)
    for (int64_t J = 0; J < side; ++J) {
      double sum = 0;
      int cells = 0;
      for (int64_t i = I * B; i < std::min(n, (I + 1) * B); ++i)
        for (int64_t j = J * B; j < std::min(n, (J + 1) * B); ++j, ++cells) sum += refAt(ref, 1, 2, i, j);
      EXPECT_NEAR(p->values.data[static_cast<size_t>(I * side + J)], sum / cells, 1e-4) << I << "," << J;
    }
}

TEST(CliLongModel, OverBudgetRequestIsRefusedWithItsSizeAndTheOptions) {
  const auto out = (scratchDir("long_budget") / "r.npz").string();
  const auto r = runCli(
      {"run", "--model", modelDir("llama"), "--text", llamaCase0(), "--memory-budget", "4K", "--out", out});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("over the memory budget of 4.0 KiB"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--rows a:b"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--pool B"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("2 layer(s) x 4 heads x 23 x 23 tokens"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  // The same text with one pooled map fits.
  const auto ok = runCli({"run", "--model", modelDir("llama"), "--text", llamaCase0(), "--memory-budget",
                          "4K", "--layer", "1", "--head", "1", "--pool", "8", "--out", out});
  EXPECT_EQ(ok.status, 0) << ok.err;
  const auto bad = runCli({"run", "--model", modelDir("llama"), "--text", llamaCase0(), "--rows", "5:99",
                           "--out", out, "--force"});
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("the text has 23 tokens"), std::string::npos) << bad.err;
}

TEST(CliLongModel, TextPastMaxPositionsIsRefusedWithTheCount) {
  std::string text;
  for (int i = 0; i < 80; ++i) text += "cat ";
  const auto out = (scratchDir("long_positions") / "r.npz").string();
  const auto r = runCli({"run", "--model", modelDir("gpt2"), "--text", text, "--pool", "8", "--out", out});
  EXPECT_NE(r.status, 0);
  // 80 words and the tokenizer's special tokens: the count the model would have run.
  EXPECT_NE(r.err.find("the input has 82 tokens but max_position_embeddings allows 64"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(CliLongModel, StreamedMetricsEqualTheMaterializedOnes) {
  std::ifstream f(modelDir("gpt2") + "/reference_tokens.json");
  const std::string text = nlohmann::json::parse(f)["cases"][1]["text"].get<std::string>();
  const auto s = runCli(
      {"metrics", "--model", modelDir("gpt2"), "--text", text, "--analysis-path", "streamed", "--json"});
  const auto m = runCli(
      {"metrics", "--model", modelDir("gpt2"), "--text", text, "--analysis-path", "materialized", "--json"});
  ASSERT_EQ(s.status, 0) << s.err;
  ASSERT_EQ(m.status, 0) << m.err;
  const auto js = nlohmann::json::parse(s.out), jm = nlohmann::json::parse(m.out);
  EXPECT_EQ(js["analysis_path"], "streamed");
  EXPECT_TRUE(js.contains("rollout_note"));
  EXPECT_TRUE(jm.contains("rollout"));
  ASSERT_EQ(js["layers"].size(), jm["layers"].size());
  for (size_t l = 0; l < jm["layers"].size(); ++l) {
    const auto &hs = js["layers"][l]["heads"], &hm = jm["layers"][l]["heads"];
    ASSERT_EQ(hs.size(), hm.size());
    for (size_t h = 0; h < hm.size(); ++h)
      for (const char* key : {"entropy_mean", "confidence", "mean_distance", "first_share", "coverage_k"})
        EXPECT_NEAR(hs[h][key].get<double>(), hm[h][key].get<double>(), 1e-6)
            << key << " layer " << l << " head " << h;
  }
  EXPECT_TRUE(js.contains("head_types"));
}

TEST(CliLongModel, InfoPrintsTheStreamedStoreSize) {
  const auto r = runCli({"info", modelDir("llama")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("streamed q/k store:"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace attn::test
