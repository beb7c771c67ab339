// End-to-end: attnscope-cli with --model on the small Hugging Face folders that
// tests/scripts/gen_model_fixtures.py wrote (plain-PyTorch reference forward,
// token ids from the tokenizers library). The suite never runs Python.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "attn/io/npy_reader.h"
#include "attn/models/bundled_models.h"
#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string text;
  std::optional<std::string> pair;
  int padTo = 0;
  std::vector<std::string> tokens;
};

Case referenceCase(const std::string& model, int c) {
  std::ifstream f(modelDir(model) + "/reference_tokens.json");
  const auto doc = nlohmann::json::parse(f);
  const auto& j = doc["cases"][static_cast<size_t>(c)];
  Case out;
  out.text = j["text"].get<std::string>();
  if (j["pair"].is_string()) out.pair = j["pair"].get<std::string>();
  out.padTo = j["pad_to"].get<int>();
  out.tokens = j["tokens"].get<std::vector<std::string>>();
  return out;
}

std::vector<std::string> caseArgs(const std::string& model, const Case& c) {
  std::vector<std::string> a{"--model", modelDir(model), "--text", c.text};
  if (c.pair) a.insert(a.end(), {"--key-text", *c.pair});
  if (c.padTo > 0) a.insert(a.end(), {"--pad-to", std::to_string(c.padTo)});
  return a;
}

class CliModelRun : public ::testing::TestWithParam<std::pair<std::string, int>> {};

// Every layer's weights within 1e-4 of the reference, the tokens identical, and
// for causal models the top-5 next tokens are the reference logits' top 5.
TEST_P(CliModelRun, WeightsTokensAndPredictionsMatchTheReference) {
  const auto [model, c] = GetParam();
  const Case ref = referenceCase(model, c);
  auto expected = readNpzFile(modelDir(model) + "/reference.npz");
  ASSERT_TRUE(expected.ok()) << expected.error().message;
  const auto* attn = member(*expected, "attn_" + std::to_string(c));
  ASSERT_NE(attn, nullptr);

  const auto out = (scratchDir("model_" + model + std::to_string(c)) / "r.npz").string();
  auto args = caseArgs(model, ref);
  args.insert(args.begin(), "run");
  args.insert(args.end(), {"--out", out});
  const auto r = runCli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  auto z = readNpzFile(out);
  ASSERT_TRUE(z.ok()) << z.error().message;
  const auto* w = member(*z, "weights");
  ASSERT_NE(w, nullptr);
  ASSERT_EQ(w->shape, attn->shape);
  float worst = 0;
  for (int64_t i = 0; i < attn->values.size(); ++i)
    worst = std::max(worst, std::abs(w->values.data[static_cast<size_t>(i)] - attn->values.data[static_cast<size_t>(i)]));
  EXPECT_LE(worst, 1e-4f);
  const auto* tokens = member(*z, "tokens");
  ASSERT_NE(tokens, nullptr);
  EXPECT_EQ(tokens->strings, ref.tokens);

  const auto* logits = member(*expected, "logits_" + std::to_string(c));
  const auto* probs = member(*z, "next_probs");
  if (!logits) {  // an encoder: no next-token predictions
    EXPECT_EQ(probs, nullptr);
    return;
  }
  ASSERT_NE(probs, nullptr);
  const int64_t n = logits->shape[0], v = logits->shape[1];
  ASSERT_EQ(probs->shape, (std::vector<int64_t>{n, 5}));
  ASSERT_NE(member(*z, "next_tokens"), nullptr);
  EXPECT_EQ(member(*z, "next_tokens")->shape, (std::vector<int64_t>{n, 5}));
  for (int64_t i = 0; i < n; ++i) {
    const float* row = logits->values.data.data() + i * v;
    const float mx = *std::max_element(row, row + v);
    double sum = 0;
    for (int64_t j = 0; j < v; ++j) sum += std::exp(static_cast<double>(row[j] - mx));
    std::vector<float> p(static_cast<size_t>(v));
    for (int64_t j = 0; j < v; ++j) p[static_cast<size_t>(j)] = static_cast<float>(std::exp(row[j] - mx) / sum);
    std::sort(p.begin(), p.end(), std::greater<>());
    for (int k = 0; k < 5; ++k)
      EXPECT_NEAR(probs->values.data[static_cast<size_t>(i * 5 + k)], p[static_cast<size_t>(k)], 1e-4)
          << "position " << i << " rank " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CliModelRun,
                         ::testing::Values(std::pair{std::string("gpt2"), 0}, std::pair{std::string("gpt2"), 1},
                                           std::pair{std::string("bert"), 0}, std::pair{std::string("bert"), 1},
                                           std::pair{std::string("llama"), 0}, std::pair{std::string("qwen2"), 0}),
                         [](const auto& p) { return p.param.first + "_" + std::to_string(p.param.second); });

// --next-tokens last computes the top 5 after the last position only (the same row as the
// default run's), none computes none; both for the materialized run and the streamed one.
TEST(CliModel, NextTokensLastAndNone) {
  const Case ref = referenceCase("llama", 0);
  const auto run = [&](const std::string& mode, bool streamed) {
    const auto out = (scratchDir("model_next_" + mode + (streamed ? "_s" : "")) / "r.npz").string();
    auto args = caseArgs("llama", ref);
    args.insert(args.begin(), "run");
    args.insert(args.end(), {"--next-tokens", mode, "--out", out});
    if (streamed) args.insert(args.end(), {"--head", "1"});
    const auto r = runCli(args);
    EXPECT_EQ(r.status, 0) << r.err;
    auto z = readNpzFile(out);
    if (!z.ok()) {
      ADD_FAILURE() << z.error().message;
      return std::vector<NpyArray>{};
    }
    return std::move(*z);
  };
  const auto all = run("all", false), last = run("last", false), none = run("none", false);
  const auto* allProbs = member(all, "next_probs");
  const auto* lastProbs = member(last, "next_probs");
  ASSERT_NE(allProbs, nullptr);
  ASSERT_NE(lastProbs, nullptr);
  ASSERT_EQ(lastProbs->shape, allProbs->shape);
  const int64_t n = allProbs->shape[0];
  const auto& allTokens = member(all, "next_tokens")->strings;
  const auto& lastTokens = member(last, "next_tokens")->strings;
  for (int64_t i = 0; i < n * 5; ++i) {
    const auto at = static_cast<size_t>(i);
    if (i < (n - 1) * 5) {
      EXPECT_EQ(lastTokens[at], "") << i;
      EXPECT_EQ(lastProbs->values.data[at], 0.0f) << i;
    } else {
      EXPECT_EQ(lastTokens[at], allTokens[at]) << i;
      // One row through the head instead of a block: the products sum in another order.
      EXPECT_NEAR(lastProbs->values.data[at], allProbs->values.data[at], 1e-6) << i;
    }
  }
  EXPECT_EQ(member(none, "next_probs"), nullptr);
  EXPECT_EQ(member(none, "next_tokens"), nullptr);

  const auto streamedAll = run("all", true), streamedLast = run("last", true),
             streamedNone = run("none", true);
  const auto* ids = member(streamedAll, "next_ids");
  const auto* lastIds = member(streamedLast, "next_ids");
  ASSERT_NE(ids, nullptr);
  ASSERT_NE(lastIds, nullptr);
  ASSERT_EQ(lastIds->shape, ids->shape);
  for (int64_t i = 0; i < n * 5; ++i) {
    const auto at = static_cast<size_t>(i);
    EXPECT_EQ(lastIds->values.data[at], i < (n - 1) * 5 ? -1.0f : ids->values.data[at]) << i;
  }
  EXPECT_EQ(member(streamedNone, "next_ids"), nullptr);
}

TEST(CliModel, InfoDescribesTheFolder) {
  const auto r = runCli({"info", modelDir("llama")});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* s : {"family: Llama", "layers: 2", "heads: 4 (2 key/value heads) of 16", "dtype: BF16", "causal"})
    EXPECT_NE(r.out.find(s), std::string::npos) << "missing '" << s << "' in:\n" << r.out;
}

TEST(CliModel, OneLayerIsWrittenWithLayer) {
  const Case ref = referenceCase("gpt2", 0);
  const auto out = (scratchDir("model_layer") / "r.npz").string();
  auto args = caseArgs("gpt2", ref);
  args.insert(args.begin(), "run");
  args.insert(args.end(), {"--layer", "2", "--out", out});
  const auto r = runCli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  auto z = readNpzFile(out);
  ASSERT_TRUE(z.ok());
  auto expected = readNpzFile(modelDir("gpt2") + "/reference.npz");
  const auto* attn = member(*expected, "attn_0");
  const auto* w = member(*z, "weights");
  ASSERT_NE(w, nullptr);
  const int64_t n = attn->shape[2];
  ASSERT_EQ(w->shape, (std::vector<int64_t>{4, n, n}));
  const int64_t layerSize = 4 * n * n;
  for (int64_t i = 0; i < layerSize; ++i)
    ASSERT_NEAR(w->values.data[static_cast<size_t>(i)], attn->values.data[static_cast<size_t>(layerSize + i)], 1e-4);
}

TEST(CliModel, MetricsAnalyseEveryLayerWithRollout) {
  const Case ref = referenceCase("bert", 0);
  auto args = caseArgs("bert", ref);
  args.insert(args.begin(), "metrics");
  args.push_back("--json");
  const auto r = runCli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["layers"].size(), 2u);
  EXPECT_EQ(doc["n_heads"], 4);
  EXPECT_EQ(doc["n_query"], static_cast<int>(ref.tokens.size()));
  ASSERT_TRUE(doc.contains("rollout"));
  for (const auto& row : doc["rollout"]) {  // rollout rows are distributions
    double s = 0;
    for (const auto& x : row) s += x.get<double>();
    EXPECT_NEAR(s, 1.0, 1e-3);
  }
}

TEST(CliModel, ExportsAFigureOfOneLayer) {
  ATTN_SKIP_WITHOUT_FIGURES();
  const Case ref = referenceCase("llama", 0);
  const auto out = (scratchDir("model_export") / "heads.png").string();
  auto args = caseArgs("llama", ref);
  args.insert(args.begin(), "export");
  args.insert(args.end(), {"--layer", "1", "--head", "all", "--out", out});
  const auto r = runCli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_GT(fs::file_size(out), 1000u);
}

TEST(CliModel, StepThroughOfARealHead) {
  ATTN_SKIP_WITHOUT_FIGURES();
  const Case ref = referenceCase("gpt2", 0);
  const auto out = (scratchDir("model_step") / "softmax.svg").string();
  auto args = caseArgs("gpt2", ref);
  args.insert(args.begin(), "export");
  args.insert(args.end(), {"--view", "step-through", "--query", "3", "--step", "5", "--out", out});
  const auto r = runCli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(readFile(out).find("<svg"), std::string::npos);
}

// A bundled model's name alone runs its first example sentence: the same JSON as
// with that sentence given as --text.
TEST(CliModel, ABundledModelWithoutTextRunsItsFirstExample) {
  const auto* bundled = models::findBundledModel("induction-2l");
  ASSERT_NE(bundled, nullptr);
  ASSERT_FALSE(bundled->examples.empty());
  const std::string dir = shellQuote(std::string(ATTN_SOURCE_DIR) + "/resources/models");
  const std::string env = "export ATTNSCOPE_MODELS_DIR=" + dir;
  const auto bare = runCliUnder(env, {"metrics", "--model", "induction-2l", "--json"});
  ASSERT_EQ(bare.status, 0) << bare.err;
  const auto given =
      runCliUnder(env, {"metrics", "--model", "induction-2l", "--json", "--text", bundled->examples.front()});
  ASSERT_EQ(given.status, 0) << given.err;
  EXPECT_EQ(bare.out, given.out);
  ASSERT_GE(bundled->examples.size(), 2u);  // and not the output of any text: another example differs
  const auto other =
      runCliUnder(env, {"metrics", "--model", "induction-2l", "--json", "--text", bundled->examples[1]});
  ASSERT_EQ(other.status, 0) << other.err;
  EXPECT_NE(bare.out, other.out);
  // A folder that is not a bundled model still needs the text.
  const auto folder = runCli({"metrics", "--model", modelDir("gpt2"), "--json"});
  EXPECT_EQ(folder.status, 1);
  EXPECT_NE(folder.err.find("--text"), std::string::npos) << folder.err;
}

// info --bundled: every model of the registry, with the folder it was found in.
TEST(CliModel, InfoListsEveryBundledModelAndItsFolder) {
  const std::string dir = std::string(ATTN_SOURCE_DIR) + "/resources/models";
  const auto r = runCliUnder("export ATTNSCOPE_MODELS_DIR=" + shellQuote(dir), {"info", "--bundled"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const auto& m : models::bundledModels()) {
    const std::string line = m.name + " ";
    const auto at = r.out.find(line);
    ASSERT_NE(at, std::string::npos) << r.out;
    const std::string rest = r.out.substr(at, r.out.find('\n', at) - at);
    EXPECT_NE(rest.find(fs::canonical(dir + "/" + m.name).string()), std::string::npos) << rest;
  }
  EXPECT_EQ(r.out.find("not installed"), std::string::npos) << r.out;
  EXPECT_EQ(static_cast<size_t>(std::count(r.out.begin(), r.out.end(), '\n')),
            models::bundledModels().size());
}

// Bad input: one line naming the folder or file and the fault, exit status 1, no output file.
TEST(CliModel, BadFoldersGiveOneLineErrors) {
  const auto dir = scratchDir("model_bad");
  const auto out = (dir / "r.npz").string();
  auto expectError = [&](const std::vector<std::string>& args, const std::string& needle) {
    const auto r = runCli(args);
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out));
  };
  expectError({"run", "--model", (dir / "absent").string(), "--text", "hi", "--out", out}, "absent");
  const auto noConfig = dir / "no_config";
  fs::copy(modelDir("gpt2"), noConfig, fs::copy_options::recursive);
  fs::remove(noConfig / "config.json");
  expectError({"run", "--model", noConfig.string(), "--text", "hi", "--out", out}, "config.json");
  const auto noShard = dir / "no_shard";
  fs::copy(modelDir("qwen2"), noShard, fs::copy_options::recursive);
  fs::remove(noShard / "model-00002-of-00002.safetensors");
  expectError({"run", "--model", noShard.string(), "--text", "hi", "--out", out}, "model-00002-of-00002.safetensors");
  expectError({"run", "--model", modelDir("gpt2"), "--text", "hi", "--layer", "3", "--out", out}, "--layer");
  expectError({"run", "--model", modelDir("gpt2"), "--text", "hi", "--heads", "3", "--out", out}, "--heads");
  std::string longText;
  for (int i = 0; i < 80; ++i) longText += "the cat ";
  expectError({"run", "--model", modelDir("gpt2"), "--text", longText, "--out", out}, "64");
}

}  // namespace
}  // namespace attn::test
