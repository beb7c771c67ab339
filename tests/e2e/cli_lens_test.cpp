// End-to-end: attnscope-cli lens --model ... on the small fixtures: the arrays of the
// file contract with their shapes and dtypes, agreement with Model::run in this process
// and with the plain-PyTorch reference (tests/scripts/gen_model_fixtures.py --step lens),
// the JSON and CSV forms, a bundled model's name, and the one-line errors.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "attn/io/npy_reader.h"
#include "attn/models/bundled_models.h"
#include "attn/models/model.h"
#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

struct LensCase {
  std::string text;
  std::optional<std::string> pair;
  int padTo = 0;
};

LensCase lensCase(const std::string& model, int c) {
  std::ifstream f(modelDir(model) + "/reference_tokens.json");
  const auto doc = nlohmann::json::parse(f);
  const auto& j = doc["cases"][static_cast<size_t>(c)];
  LensCase out;
  out.text = j["text"].get<std::string>();
  if (j["pair"].is_string()) out.pair = j["pair"].get<std::string>();
  out.padTo = j["pad_to"].get<int>();
  return out;
}

std::vector<std::string> lensArgs(const std::string& model, const LensCase& c) {
  std::vector<std::string> a{"lens", "--model", modelDir(model), "--text", c.text};
  if (c.pair) a.insert(a.end(), {"--key-text", *c.pair});
  if (c.padTo > 0) a.insert(a.end(), {"--pad-to", std::to_string(c.padTo)});
  return a;
}

class CliLens : public ::testing::TestWithParam<std::pair<std::string, int>> {};

TEST_P(CliLens, FileContractInProcessResultAndReference) {
  const auto [name, c] = GetParam();
  const LensCase ref = lensCase(name, c);
  const auto out = (scratchDir(fmt::format("lens_{}{}", name, c)) / "lens.npz").string();
  auto args = lensArgs(name, ref);
  args.insert(args.end(), {"--out", out});
  const auto r = runCli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  auto z = readNpzFile(out);
  ASSERT_TRUE(z.ok()) << z.error().message;

  auto model = models::Model::open(modelDir(name));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const int L = (*model)->info().layers;
  auto enc = (*model)->encode(ref.text, ref.pair ? std::optional<std::string_view>(*ref.pair) : std::nullopt,
                              "t", ref.padTo);
  ASSERT_TRUE(enc.ok());
  const int n = enc->size();
  models::RunOptions opt;
  opt.logitLens = true;
  auto run = (*model)->run(*enc, opt);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const models::LogitLens& in = *run->lens;

  const auto *ids = member(*z, "lens_top_ids"), *probs = member(*z, "lens_top_probs"),
             *rank = member(*z, "lens_final_rank"), *finalProbs = member(*z, "lens_final_probs"),
             *tokens = member(*z, "lens_top_tokens");
  ASSERT_TRUE(ids && probs && rank && finalProbs && tokens);
  EXPECT_EQ(ids->shape, (std::vector<int64_t>{L + 1, n, 5}));
  EXPECT_EQ(probs->shape, (std::vector<int64_t>{L + 1, n, 5}));
  EXPECT_EQ(rank->shape, (std::vector<int64_t>{L + 1, n}));
  EXPECT_EQ(finalProbs->shape, (std::vector<int64_t>{L + 1, n}));
  EXPECT_EQ(ids->descr, "<i4");
  EXPECT_EQ(rank->descr, "<i4");
  EXPECT_EQ(tokens->strings.size(), ids->values.data.size());
  // The CLI and this process may run different engine copies (AVX2 / AVX-512): ids where
  // the probabilities are apart, probabilities to float rounding.
  for (size_t i = 0; i < in.topIds.size(); ++i) {
    EXPECT_NEAR(probs->values.data[i], in.topProbs[i], 1e-5) << i;
    const auto apart = [](float a, float b) { return a - b > 1e-3f * a; };  // a logit gap above ~1e-3
    if (i % 5 < 4 && apart(in.topProbs[i], in.topProbs[i + 1]) &&
        (i % 5 == 0 || apart(in.topProbs[i - 1], in.topProbs[i])))
      EXPECT_EQ(static_cast<int>(ids->values.data[i]), in.topIds[i]) << i;
  }
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(rank->values.data[static_cast<size_t>(L) * n + i], 0.0f)
        << "row L is the model's own prediction";
    EXPECT_EQ(tokens->strings[(static_cast<size_t>(L) * n + i) * 5],
              (*model)->tokenizer().displayText(in.finalIds[i]));
  }
  // and the reference: the probabilities of every cell
  auto want = readNpzFile(modelDir(name) + "/reference_lens.npz");
  ASSERT_TRUE(want.ok());
  const auto* wp = member(*want, fmt::format("lens_top_probs_{}", c));
  const auto* wf = member(*want, fmt::format("lens_final_probs_{}", c));
  ASSERT_TRUE(wp && wf);
  ASSERT_EQ(wp->shape, probs->shape);
  EXPECT_LE(maxAbsDiff(probs->values.data.data(), wp->values.data, 0, wp->values.data.size()), 1e-4);
  EXPECT_LE(maxAbsDiff(finalProbs->values.data.data(), wf->values.data, 0, wf->values.data.size()), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CliLens,
                         ::testing::Values(std::make_pair(std::string("gpt2"), 0),
                                           std::make_pair(std::string("bert"), 1),
                                           std::make_pair(std::string("qwen2"), 2)));

TEST(CliLensForms, JsonCsvAndTheTableAgreeWithTheArchive) {
  const LensCase ref = lensCase("gpt2", 0);
  const auto dir = scratchDir("lens_forms");
  const auto out = (dir / "l.npz").string(), csv = (dir / "l.csv").string();
  auto args = lensArgs("gpt2", ref);
  args.insert(args.end(), {"--out", out, "--csv", csv, "--json"});
  const auto r = runCli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  auto z = readNpzFile(out);
  ASSERT_TRUE(z.ok());
  const auto* ids = member(*z, "lens_top_ids");
  ASSERT_NE(ids, nullptr);
  const int rows = doc["rows"].get<int>(), n = doc["positions"].get<int>();
  EXPECT_EQ(rows, 3);
  EXPECT_EQ(doc["n_layers"].get<int>(), 2);
  ASSERT_EQ(doc["layers"].size(), static_cast<size_t>(rows));
  for (int l = 0; l < rows; ++l)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < 5; ++j)
        EXPECT_EQ(doc["layers"][l]["positions"][i]["top"][j]["id"].get<int>(),
                  static_cast<int>(ids->values.data[(static_cast<size_t>(l) * n + i) * 5 + j]));
  EXPECT_EQ(doc["layers"][rows - 1]["positions"][n - 1]["final_rank"].get<int>(), 0);
  std::ifstream f(csv);
  std::string header;
  std::getline(f, header);
  EXPECT_EQ(header.rfind("layer,position,token,final_token,final_rank,final_prob,top1_token,top1_prob", 0),
            0u)
      << header;
  // records, not lines: a token with a newline is a quoted field (RFC 4180)
  const std::string rest((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  int lines = 0;
  bool quoted = false;
  for (char ch : rest) {
    if (ch == '"') quoted = !quoted;
    if (ch == '\n' && !quoted) ++lines;
  }
  EXPECT_EQ(lines, rows * n);
  // the table: one position down every row (default the last), or one layer across
  const auto table = runCli(lensArgs("gpt2", ref));
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find(fmt::format("position {}", n - 1)), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("embeddings"), std::string::npos) << table.out;
  auto layerArgs = lensArgs("gpt2", ref);
  layerArgs.insert(layerArgs.end(), {"--layer", "1"});
  const auto layer = runCli(layerArgs);
  ASSERT_EQ(layer.status, 0) << layer.err;
  EXPECT_NE(layer.out.find("layer 1, read out"), std::string::npos) << layer.out;
}

// Over a file of prompts: per layer, the mean over the prompts of each prompt's mean final-token
// probability and top-1 agreement (every position of a GPT-2 text counts), with the population
// spread; equal to what the single-prompt archives give.
TEST(CliLensForms, PromptsFileSummarisesEveryLayerOverThePrompts) {
  const auto dir = scratchDir("lens_prompts");
  const std::string a = lensCase("gpt2", 0).text, b = "the cat sat on the mat and the dog";
  std::vector<std::vector<std::pair<double, double>>> single;  // [prompt][row] -> (prob, agreement)
  for (const auto& text : {a, b}) {
    const auto r = runCli({"lens", "--model", modelDir("gpt2"), "--text", text, "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto doc = nlohmann::json::parse(r.out);
    auto& rows = single.emplace_back();
    for (const auto& layer : doc["layers"]) {
      double prob = 0, top1 = 0;
      for (const auto& pos : layer["positions"])
        prob += pos["final_prob"].get<double>(), top1 += pos["final_rank"].get<int>() == 0 ? 1 : 0;
      const auto n = static_cast<double>(layer["positions"].size());
      rows.emplace_back(prob / n, top1 / n);
    }
  }
  const auto prompts = dir / "prompts.txt";
  { std::ofstream(prompts) << a << "\n \n" << b << "\n"; }
  const auto out = (dir / "summary.npz").string(), csv = (dir / "summary.csv").string();
  const auto r = runCli({"lens", "--model", modelDir("gpt2"), "--prompts", prompts.string(), "--json",
                         "--out", out, "--csv", csv});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["prompts"].get<int>(), 2);
  ASSERT_EQ(doc["final_prob_mean"].size(), 3u);  // the embeddings and two layers
  for (size_t l = 0; l < 3; ++l) {
    const auto [pa, ta] = single[0][l];
    const auto [pb, tb] = single[1][l];
    EXPECT_NEAR(doc["final_prob_mean"][l].get<double>(), (pa + pb) / 2, 1e-5);
    EXPECT_NEAR(doc["final_prob_std"][l].get<double>(), std::abs(pa - pb) / 2, 1e-4);
    EXPECT_NEAR(doc["top1_agreement_mean"][l].get<double>(), (ta + tb) / 2, 1e-6);
    EXPECT_NEAR(doc["top1_agreement_std"][l].get<double>(), std::abs(ta - tb) / 2, 1e-5);
  }
  EXPECT_DOUBLE_EQ(doc["top1_agreement_mean"][2].get<double>(), 1.0);  // the last row is the model
  auto z = readNpzFile(out);
  ASSERT_TRUE(z.ok()) << z.error().message;
  const auto* mean = member(*z, "lens_final_prob_mean");
  ASSERT_NE(mean, nullptr);
  EXPECT_EQ(mean->shape, (std::vector<int64_t>{3}));
  EXPECT_NEAR(mean->values.data[1], doc["final_prob_mean"][1].get<double>(), 1e-6);
  std::ifstream f(csv);
  std::string header;
  std::getline(f, header);
  EXPECT_EQ(header, "layer,final_prob,final_prob_std,top1_agreement,top1_agreement_std");
  // A prompt past the fixture's context: refused naming its line, or cut with --max-tokens.
  std::string longLine;
  for (int i = 0; i < 80; ++i) longLine += "cat ";
  { std::ofstream(prompts) << a << "\n" << longLine << "\n"; }
  const auto bad = runCli({"lens", "--model", modelDir("gpt2"), "--prompts", prompts.string()});
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("prompts.txt:2: the input has"), std::string::npos) << bad.err;
  const auto cut =
      runCli({"lens", "--model", modelDir("gpt2"), "--prompts", prompts.string(), "--max-tokens", "32"});
  EXPECT_EQ(cut.status, 0) << cut.err;
}

TEST(CliLensForms, ABundledModelByNameRunsItsFirstExample) {
  const auto* bundled = models::findBundledModel("induction-2l");
  ASSERT_NE(bundled, nullptr);
  const std::string env =
      "export ATTNSCOPE_MODELS_DIR=" + shellQuote(std::string(ATTN_SOURCE_DIR) + "/resources/models");
  const auto bare = runCliUnder(env, {"lens", "--model", "induction-2l", "--json"});
  ASSERT_EQ(bare.status, 0) << bare.err;
  const auto given =
      runCliUnder(env, {"lens", "--model", "induction-2l", "--json", "--text", bundled->examples.front()});
  ASSERT_EQ(given.status, 0) << given.err;
  EXPECT_EQ(bare.out, given.out);
}

TEST(CliLensErrors, OneClearLineAndNoFile) {
  const auto dir = scratchDir("lens_errors");
  const auto out = (dir / "l.npz").string();
  const LensCase ref = lensCase("gpt2", 0);
  auto with = [&](std::vector<std::string> extra) {
    auto a = lensArgs("gpt2", ref);
    a.insert(a.end(), extra.begin(), extra.end());
    return runCli(a);
  };
  const auto badLayer = with({"--layer", "9"});
  EXPECT_EQ(badLayer.status, 1);
  EXPECT_NE(badLayer.err.find("--layer: 9 is out of range (1..2)"), std::string::npos) << badLayer.err;
  const auto badPos = with({"--position", "999"});
  EXPECT_EQ(badPos.status, 1);
  EXPECT_NE(badPos.err.find("--position: 999 is out of range"), std::string::npos) << badPos.err;
  const auto badOut = with({"--out", (dir / "l.txt").string()});
  EXPECT_EQ(badOut.status, 1);
  EXPECT_NE(badOut.err.find("must end in .npz"), std::string::npos) << badOut.err;
  const auto badTop = with({"--top", "0"});
  EXPECT_EQ(badTop.status, 1);
  EXPECT_NE(badTop.err.find("--top"), std::string::npos) << badTop.err;
  // an encoder without its masked-LM head has nothing to read the lens out through
  const auto bare = runCli({"lens", "--model", modelDir("bert_legacy"), "--text", "the cat", "--out", out});
  EXPECT_EQ(bare.status, 1);
  EXPECT_NE(bare.err.find("masked-LM head"), std::string::npos) << bare.err;
  EXPECT_NE(bare.err.find("config.json"), std::string::npos) << bare.err;
  EXPECT_EQ(std::count(bare.err.begin(), bare.err.end(), '\n'), 1) << bare.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  const auto noText = runCli({"lens", "--model", modelDir("gpt2")});
  EXPECT_EQ(noText.status, 1);
  EXPECT_NE(noText.err.find("--text"), std::string::npos) << noText.err;
  // an existing file is kept unless --force
  { std::ofstream(out) << "x"; }
  const auto exists = with({"--out", out});
  EXPECT_EQ(exists.status, 1);
  EXPECT_NE(exists.err.find("--force"), std::string::npos) << exists.err;
  EXPECT_EQ(with({"--out", out, "--force"}).status, 0);
}

}  // namespace
}  // namespace attn::test
