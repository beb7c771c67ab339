// End-to-end: `run --model` and `metrics --model` streamed (no N x N array) on
// the model fixtures. The maps written from the kept q/k are compared with the
// plain-PyTorch reference attentions of tests/scripts/gen_model_fixtures.py
// (reference.npz attn_<case>, [L, H, N, N]); a request over the memory budget
// and a text past max_position_embeddings are refused with their sizes.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
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
  EXPECT_NE(r.err.find("the input has 82 tokens but gpt2 reads at most 64"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--max-tokens 64 keeps the first 64"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("`metrics --window 64` measures every token"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// metrics --window: every token of a text past the context measured once, through windows of
// the model's context (models/streamed/windowed_run.h; the rows are checked against each
// window's own run in windowed_run_test.cpp); what cannot be windowed is refused.
TEST(CliLongModel, WindowMeasuresATextPastTheContext) {
  std::string text;
  for (int i = 0; i < 80; ++i) text += "cat ";
  const auto r = runCli(
      {"metrics", "--model", modelDir("gpt2"), "--text", text, "--window", "64", "--stride", "16", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["analysis_path"], "streamed");
  EXPECT_EQ(j["n_query"], 82);
  EXPECT_EQ(j["n_key"], 64);
  // Windows at 0, 16 and 18 (the last ends at token 82), measuring rows 0-63, 64-79, 80-81.
  EXPECT_EQ(j["window"]["windows"], 3);
  EXPECT_EQ(j["window"]["stride"], 16);
  ASSERT_EQ(j["layers"].size(), 2u);
  for (const auto& layer : j["layers"])
    for (const auto& head : layer["heads"]) {
      EXPECT_GT(head["entropy_mean"].get<double>(), 0.0);
      EXPECT_LE(head["entropy_mean"].get<double>(), std::log(64.0) + 1e-9);  // at most 64 keys a row
    }
  const auto t = runCli({"metrics", "--model", modelDir("gpt2"), "--text", text, "--window", "64"});
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("sliding window: 82 tokens in 2 window(s) of 64 every 32"), std::string::npos)
      << t.out;

  const auto refuse = [&](std::vector<std::string> args, const std::string& message) {
    const auto e = runCli(args);
    EXPECT_NE(e.status, 0) << message;
    EXPECT_NE(e.err.find(message), std::string::npos) << e.err;
  };
  refuse({"metrics", "--model", modelDir("gpt2"), "--text", text, "--window", "65"},
         "--window 65 exceeds gpt2's context of 64 tokens");
  refuse({"metrics", "--model", modelDir("gpt2"), "--text", text, "--window", "1"},
         "--window must be at least 2");
  refuse({"metrics", "--model", modelDir("gpt2"), "--text", text, "--window", "16", "--stride", "17"},
         "--stride must be between 1 and --window 16");
  refuse({"metrics", "--model", modelDir("gpt2"), "--text", text, "--stride", "8"},
         "--stride requires --window");
  refuse(
      {"metrics", "--model", modelDir("gpt2"), "--text", text, "--window", "64", "--intervene", "ablate:1.1"},
      "--intervene needs them whole");
  refuse({"metrics", "--model", modelDir("bert"), "--text", text, "--window", "32"},
         "the window runs causal models");
  refuse({"metrics", "--text", text, "--window", "32"}, "--window reads a --model's text");
  refuse({"metrics", "--model", modelDir("vit"), "--image", "any.ppm", "--window", "32"},
         "an --image has no text to window");
}

// A causal model's first N rows never see a later token, so the run cut by --max-tokens N is
// the top-left N x N block of the whole text's maps.
TEST(CliLongModel, MaxTokensKeepsTheFirstTokensAndSaysHowManyWereCut) {
  std::string text;
  for (int i = 0; i < 30; ++i) text += i % 3 == 0 ? "the cat " : "sat ";
  const auto dir = scratchDir("max_tokens");
  const auto whole = (dir / "whole.npz").string(), cut = (dir / "cut.npz").string();
  const auto a = runCli({"run", "--model", modelDir("gpt2"), "--text", text, "--out", whole});
  ASSERT_EQ(a.status, 0) << a.err;
  const auto b =
      runCli({"run", "--model", modelDir("gpt2"), "--text", text, "--max-tokens", "24", "--out", cut});
  ASSERT_EQ(b.status, 0) << b.err;
  auto zw = readNpzFile(whole), zc = readNpzFile(cut);
  ASSERT_TRUE(zw.ok() && zc.ok());
  const auto *ww = member(*zw, "weights"), *wc = member(*zc, "weights");
  ASSERT_NE(ww, nullptr);
  ASSERT_NE(wc, nullptr);
  const int64_t L = ww->shape[0], H = ww->shape[1], n = ww->shape[2];
  ASSERT_GT(n, 24);
  ASSERT_EQ(wc->shape, (std::vector<int64_t>{L, H, 24, 24}));
  float worst = 0;
  for (int64_t lh = 0; lh < L * H; ++lh)
    for (int64_t i = 0; i < 24; ++i)
      for (int64_t j = 0; j < 24; ++j)
        worst = std::max(worst, std::abs(wc->values.data[static_cast<size_t>((lh * 24 + i) * 24 + j)] -
                                         ww->values.data[static_cast<size_t>((lh * n + i) * n + j)]));
  EXPECT_LT(worst, 1e-5f);
  const auto* untruncated = member(*zc, "untruncated_tokens");
  ASSERT_NE(untruncated, nullptr);
  EXPECT_EQ(untruncated->values.data[0], static_cast<float>(n));
  EXPECT_EQ(member(*zw, "untruncated_tokens"), nullptr);
  EXPECT_NE(b.out.find(fmt::format("24 tokens, the first of the text's {}", n)), std::string::npos) << b.out;
  EXPECT_NE(b.err.find(fmt::format("has {} tokens; --max-tokens 24 keeps the first 24", n)),
            std::string::npos)
      << b.err;

  // BERT: the cut keeps [CLS] and [SEP] around the text's first 14 tokens, so it is the run of
  // those 14 words, ids and maps alike.
  const auto bert = (dir / "bert.npz").string(), short14 = (dir / "bert14.npz").string();
  std::string longText, shortText;
  for (int i = 0; i < 90; ++i) longText += "cat ";
  for (int i = 0; i < 14; ++i) shortText += "cat ";
  const auto c =
      runCli({"run", "--model", modelDir("bert"), "--text", longText, "--max-tokens", "16", "--out", bert});
  ASSERT_EQ(c.status, 0) << c.err;
  const auto d = runCli({"run", "--model", modelDir("bert"), "--text", shortText, "--out", short14});
  ASSERT_EQ(d.status, 0) << d.err;
  auto zb = readNpzFile(bert), zs = readNpzFile(short14);
  ASSERT_TRUE(zb.ok() && zs.ok());
  for (const char* name : {"ids", "weights"}) {
    const auto *got = member(*zb, name), *want = member(*zs, name);
    ASSERT_NE(got, nullptr);
    ASSERT_NE(want, nullptr);
    ASSERT_EQ(got->shape, want->shape) << name;
    for (size_t k = 0; k < got->values.data.size(); ++k)
      ASSERT_NEAR(got->values.data[k], want->values.data[k], 1e-6) << name << " at " << k;
  }
  const auto refused = (dir / "refused.npz").string();
  const auto e = runCli(
      {"run", "--model", modelDir("bert"), "--text", longText, "--max-tokens", "65", "--out", refused});
  EXPECT_NE(e.status, 0);
  EXPECT_NE(e.err.find("--max-tokens 65 exceeds bert's context of 64 tokens"), std::string::npos) << e.err;
  EXPECT_FALSE(std::filesystem::exists(refused));
}

// The streamed report's rollout (from each layer's head sums) equals the materialized one's.
void expectSameRollout(const nlohmann::json& streamed, const nlohmann::json& materialized) {
  ASSERT_TRUE(streamed.contains("rollout")) << streamed.value("rollout_note", "");
  ASSERT_TRUE(materialized.contains("rollout"));
  const auto &rs = streamed["rollout"], &rm = materialized["rollout"];
  ASSERT_EQ(rs.size(), rm.size());
  double worst = 0;
  for (size_t i = 0; i < rm.size(); ++i) {
    ASSERT_EQ(rs[i].size(), rm[i].size());
    for (size_t j = 0; j < rm[i].size(); ++j)
      worst = std::max(worst, std::abs(rs[i][j].get<double>() - rm[i][j].get<double>()));
  }
  EXPECT_LE(worst, 1e-5);
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
  EXPECT_FALSE(jm.contains("analysis_path"));
  expectSameRollout(js, jm);
  // Short enough for the exact flow: only the materialized path computes it.
  EXPECT_TRUE(jm.contains("flow"));
  EXPECT_NE(js["flow_note"].get<std::string>().find("needs every layer's full maps"), std::string::npos);
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

TEST(CliLongModel, AutoStreamsATextTooLongForTheFlowWithTheSameRollout) {
  // 2 layers: the exact flow takes up to 54 tokens (2 N^4 <= 1.7e7); 60 go the streamed way.
  std::string text;
  for (int i = 0; i < 40; ++i) text += "the cat sat on it. ";
  const std::vector<std::string> base{"metrics",      "--model", modelDir("gpt2"), "--text", text,
                                      "--max-tokens", "60",      "--json"};
  auto withPath = [&](const char* path) {
    auto args = base;
    if (path) args.insert(args.end(), {"--analysis-path", path});
    return runCli(args);
  };
  const auto a = withPath(nullptr), m = withPath("materialized");
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(m.status, 0) << m.err;
  const auto ja = nlohmann::json::parse(a.out), jm = nlohmann::json::parse(m.out);
  EXPECT_EQ(ja["analysis_path"], "streamed");
  EXPECT_EQ(ja["n_query"], 60);
  expectSameRollout(ja, jm);
  for (const auto* j : {&ja, &jm})
    EXPECT_NE(
        (*j)["flow_note"].get<std::string>().find("2 layers of 60 tokens is too large for exact max-flow"),
        std::string::npos)
        << (*j)["flow_note"];
  const auto text1 = runCli({"metrics", "--model", modelDir("gpt2"), "--text", text, "--max-tokens", "60"});
  ASSERT_EQ(text1.status, 0) << text1.err;
  EXPECT_NE(text1.out.find("attention rollout: see --json"), std::string::npos) << text1.out;
  // Through a sliding window no rollout is computed, and the report says why.
  const auto w = runCli({"metrics", "--model", modelDir("gpt2"), "--text", text, "--window", "32", "--json"});
  ASSERT_EQ(w.status, 0) << w.err;
  const auto jw = nlohmann::json::parse(w.out);
  EXPECT_FALSE(jw.contains("rollout"));
  EXPECT_NE(jw["rollout_note"].get<std::string>().find("sliding window"), std::string::npos)
      << jw["rollout_note"];
}

TEST(CliLongModel, InfoPrintsTheStreamedStoreSize) {
  const auto r = runCli({"info", modelDir("llama")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("streamed q/k store:"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace attn::test
