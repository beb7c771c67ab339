// End-to-end: attnscope-cli train writes the curves (CSV, JSON) and map snapshots
// (.npz) of a tiny run, runs a demonstration, and refuses bad options with one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attn/io/npy_reader.h"
#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

using attn::test::member;

namespace fs = std::filesystem;

const std::vector<std::string> kSmall{"train", "--task", "reverse", "--seq-len", "5", "--vocab", "5",
                                      "--d-model", "8", "--d-k", "4", "--heads", "2", "--batch", "4",
                                      "--steps", "20", "--snapshot-every", "8", "--quiet"};

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

TEST(CliTrain, WritesCurvesAndMapSnapshots) {
  const fs::path dir = scratchDir("train_npz");
  const auto npzPath = (dir / "run.npz").string(), csvPath = (dir / "curves.csv").string();
  const auto r = runCli(with(kSmall, {"--out", npzPath, "--csv", csvPath}));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("20 steps in"), std::string::npos) << r.out;
  auto z = readNpzFile(npzPath);
  ASSERT_TRUE(z.ok()) << z.error().message;
  const NpyArray* loss = member(*z, "loss");
  ASSERT_NE(loss, nullptr);
  EXPECT_EQ(loss->shape, (std::vector<int64_t>{21}));
  ASSERT_NE(member(*z, "entropy"), nullptr);
  EXPECT_EQ(member(*z, "entropy")->shape, (std::vector<int64_t>{21, 2}));
  // Snapshots at 0, 8, 16 and the last step 20: [K, L, H, N, N].
  const NpyArray* steps = member(*z, "snapshot_steps");
  ASSERT_NE(steps, nullptr);
  EXPECT_EQ(steps->values.data, (std::vector<float>{0, 8, 16, 20}));
  const NpyArray* maps = member(*z, "maps");
  ASSERT_NE(maps, nullptr);
  EXPECT_EQ(maps->shape, (std::vector<int64_t>{4, 1, 2, 5, 5}));
  for (int row = 0; row < 4 * 2 * 5; ++row) {
    double s = 0;
    for (int j = 0; j < 5; ++j) s += maps->values.data[static_cast<size_t>(row * 5 + j)];
    EXPECT_NEAR(s, 1.0, 1e-5);
  }
  // The reverse task's expected pattern is the anti-diagonal.
  const NpyArray* expected = member(*z, "expected");
  ASSERT_NE(expected, nullptr);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(expected->values.data[static_cast<size_t>(i * 5 + (4 - i))], 1.0f);
  ASSERT_NE(member(*z, "tokens"), nullptr);
  EXPECT_EQ(member(*z, "tokens")->strings.size(), 5u);

  const std::string csv = readFile(csvPath);
  std::istringstream lines(csv);
  std::string header, line;
  std::getline(lines, header);
  EXPECT_EQ(header, "step,loss,cross_entropy,accuracy,grad_norm,grad_norm_qk,clipped,entropy_l1h1,entropy_l1h2");
  int rows = 0;
  while (std::getline(lines, line)) ++rows;
  EXPECT_EQ(rows, 21);
  // The first row's loss is the npz's.
  std::istringstream first(csv.substr(header.size() + 1));
  std::string stepField, lossField;
  std::getline(first, stepField, ',');
  std::getline(first, lossField, ',');
  EXPECT_EQ(stepField, "0");
  EXPECT_NEAR(std::stod(lossField), loss->values.data[0], 1e-5 * std::abs(loss->values.data[0]));

  // Same seed, same run; --force needed to overwrite.
  const auto again = runCli(with(kSmall, {"--out", npzPath}));
  EXPECT_NE(again.status, 0);
  EXPECT_NE(again.err.find("file exists"), std::string::npos) << again.err;
}

TEST(CliTrain, JsonIsDeterministicForASeed) {
  const auto a = runCli(with(kSmall, {"--json"}));
  const auto b = runCli(with(kSmall, {"--json"}));
  ASSERT_EQ(a.status, 0) << a.err;
  const auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  EXPECT_EQ(ja["config"]["task"], "reverse");
  EXPECT_EQ(ja["steps"], 20);
  ASSERT_EQ(ja["curves"]["loss"].size(), 21u);
  EXPECT_EQ(ja["curves"]["loss"], jb["curves"]["loss"]);
  EXPECT_EQ(ja["curves"]["entropy"][0].size(), 2u);
  // Entropy of each head is between 0 and log N.
  for (const auto& row : ja["curves"]["entropy"])
    for (const auto& e : row) {
      EXPECT_GE(e.get<double>(), 0.0);
      EXPECT_LE(e.get<double>(), std::log(5.0) + 1e-9);
    }
}

TEST(CliTrain, RunsADemonstration) {
  const auto r = runCli({"train", "--demo", "collapse-init", "--steps", "5", "--json", "--quiet"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["demo"], "collapse-init");
  ASSERT_EQ(j["runs"].size(), 2u);
  // The bad initialisation keeps every map uniform: entropy log N, no gradient to W_Q, W_K.
  const auto& bad = j["runs"][1];
  EXPECT_EQ(bad["config"]["init"], "bad");
  for (const auto& g : bad["curves"]["grad_norm_qk"]) EXPECT_EQ(g.get<double>(), 0.0);
  const double logN = std::log(bad["config"]["seq_len"].get<double>());
  for (const auto& row : bad["curves"]["entropy"]) EXPECT_NEAR(row[0].get<double>(), logN, 1e-4);  // float entropy
}

TEST(CliTrain, DumpInitWritesStepZeroOrNothing) {
  const fs::path dir = scratchDir("train_dump");
  const auto path = (dir / "init.npz").string();
  const auto r =
      runCli({"train",   "--task", "induction", "--seq-len", "10",      "--vocab",     "8",     "--d-model",
              "8",       "--d-k",  "4",         "--layers",  "2",       "--residual",  "--mlp", "4",
              "--batch", "3",      "--steps",   "0",         "--quiet", "--dump-init", path});
  ASSERT_EQ(r.status, 0) << r.err;
  auto z = readNpzFile(path);
  ASSERT_TRUE(z.ok()) << z.error().message;
  // Every parameter with its gradient, the batch, the loss and the config.
  int params = 0, grads = 0;
  for (const NpyArray& a : *z) {
    if (a.name.rfind("grad.", 0) == 0) {
      ++grads;
      const NpyArray* p = member(*z, a.name.substr(5));
      ASSERT_NE(p, nullptr) << a.name;
      EXPECT_EQ(p->shape, a.shape) << a.name;
    } else if (a.name.find(".w_") != std::string::npos || a.name.find("embedding") != std::string::npos) {
      ++params;
    }
  }
  EXPECT_EQ(grads, 2 * (3 + 1 + 4) + 4);  // per layer: q k v, w_o, 4 MLP; + 2 embeddings, w_out, b_out
  EXPECT_GE(params, 2 * 6);
  ASSERT_NE(member(*z, "inputs"), nullptr);
  EXPECT_EQ(member(*z, "inputs")->shape, (std::vector<int64_t>{3, 10}));
  const NpyArray* targets = member(*z, "targets");
  ASSERT_NE(targets, nullptr);
  EXPECT_NE(std::count(targets->values.data.begin(), targets->values.data.end(), -1.0f),
            0);  // outside the repeat
  ASSERT_NE(member(*z, "config.residual"), nullptr);
  EXPECT_EQ(member(*z, "config.residual")->values.data[0], 1.0f);
  EXPECT_EQ(member(*z, "config.causal")->values.data[0], 1.0f);  // induction is causal
  ASSERT_NE(member(*z, "loss"), nullptr);

  // An unwritable place: one line naming the file, and no file left behind.
  const auto bad = (dir / "missing" / "init.npz").string();
  const auto e = runCli({"train", "--steps", "0", "--quiet", "--dump-init", bad});
  EXPECT_EQ(e.status, 1);
  EXPECT_NE(e.err.find(bad), std::string::npos) << e.err;
  EXPECT_EQ(std::count(e.err.begin(), e.err.end(), '\n'), 1) << e.err;
  EXPECT_FALSE(fs::exists(bad));
  // An existing file is kept unless --force.
  const auto again = runCli({"train", "--steps", "0", "--quiet", "--dump-init", path});
  EXPECT_NE(again.status, 0);
  EXPECT_NE(again.err.find("file exists"), std::string::npos) << again.err;
}

TEST(CliTrain, InductionRunReportsHeadScores) {
  const auto r = runCli({"train",     "--task", "induction", "--seq-len", "12",       "--vocab", "12",
                         "--d-model", "16",     "--d-k",     "4",         "--layers", "2",       "--residual",
                         "--batch",   "4",      "--steps",   "3",         "--json",   "--quiet"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["config"]["task"], "induction");
  EXPECT_EQ(j["config"]["residual"], true);
  ASSERT_EQ(j["curves"]["induction_score"].size(), 4u);
  ASSERT_EQ(j["final"]["previous_token_score"].size(), 2u);  // layers x heads
  for (const auto& row : j["curves"]["induction_score"])
    for (const auto& v : row) {
      EXPECT_GE(v.get<double>(), 0.0);
      EXPECT_LE(v.get<double>(), 1.0 + 1e-6);
    }
}

TEST(CliTrain, BadOptionsGiveOneClearLine) {
  struct Case {
    std::vector<std::string> args;
    std::string needle;
  };
  const std::vector<Case> cases{
      {{"train", "--task", "copyy"}, "--task: unknown value 'copyy'"},
      {{"train", "--mechanism", "cosine"}, "--mechanism"},
      {{"train", "--layers", "3"}, "layers must be between 1 and 2"},
      {{"train", "--lr", "-1"}, "lr must be"},
      {{"train", "--task", "brackets", "--seq-len", "7"}, "even"},
      {{"train", "--demo", "magic"}, "unknown demonstration 'magic'"},
      {{"train", "--demo", "scaling", "--lr", "0.1"}, "--lr cannot be combined with --demo"},
      {{"train", "--out", "run.txt"}, "must name a .npz"},
      {{"train", "--steps", "-2"}, "--steps"},
      {{"train", "--mlp", "8"}, "mlp needs the residual stream"},
      {{"train", "--task", "induction", "--seq-len", "6"}, "seq-len (induction)"},
      {{"train", "--dump-init", "init.txt"}, "--dump-init must name a .npz"},
      {{"train", "--demo", "induction", "--dump-init", "init.npz"},
       "--dump-init cannot be combined with --demo"},
  };
  for (const auto& c : cases) {
    const auto r = runCli(c.args);
    EXPECT_EQ(r.status, 1) << c.needle;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace attn::test
