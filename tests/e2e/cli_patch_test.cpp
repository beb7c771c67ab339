// End-to-end: attnscope-cli patch on the small GPT-2 and Llama fixtures: the arrays of
// the file contract with their shapes, equal to Model::patch in this process; --json;
// --sites; and one clear message for what cannot be patched.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <tuple>

#include "attn/io/npy_reader.h"
#include "attn/models/model.h"
#include "attn/models/patching/activation_patching.h"
#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

constexpr const char* kClean = "The cat sat on the mat, and it was";
constexpr const char* kCorrupt = "The mat sat on the cat, and it was";

struct Pair {
  std::shared_ptr<const models::Model> model;
  models::Encoding clean, corrupt;
  int target = 0, foil = 0;
};

/// The target: the clean text's top next token; the foil: the corrupt text's (or the clean one's second).
Pair pairFor(const std::string& name) {
  Pair p;
  auto m = models::Model::open(modelDir(name));
  EXPECT_TRUE(m.ok()) << m.error().message;
  p.model = *m;
  p.clean = *p.model->encode(kClean, std::nullopt, "clean");
  p.corrupt = *p.model->encode(kCorrupt, std::nullopt, "corrupt");
  EXPECT_EQ(p.clean.size(), p.corrupt.size());
  auto a = p.model->run(p.clean), b = p.model->run(p.corrupt);
  EXPECT_TRUE(a.ok() && b.ok());
  p.target = a->nextTokens.back()[0].id;
  p.foil = b->nextTokens.back()[0].id;
  if (p.foil == p.target) p.foil = a->nextTokens.back()[1].id;
  return p;
}

const NpyArray* patchMember(const std::vector<NpyArray>& z, const std::string& name) {
  for (const auto& a : z)
    if (a.name == name) return &a;
  return nullptr;
}

double diffTo(const NpyArray& a, const Mat& m) {
  EXPECT_EQ(a.shape, (std::vector<int64_t>{m.rows(), m.cols()}));
  double worst = 0;
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c)
      worst = std::max(
          worst,
          std::abs(static_cast<double>(a.values.data[static_cast<size_t>(r * m.cols() + c)]) - m(r, c)));
  return worst;
}

class CliPatch : public ::testing::TestWithParam<std::string> {};

TEST_P(CliPatch, WritesTheContractArraysEqualToTheInProcessResult) {
  const Pair p = pairFor(GetParam());
  ASSERT_TRUE(p.model);
  auto want = p.model->patch(p.clean, p.corrupt, p.target, p.foil, models::PatchingOptions{});
  ASSERT_TRUE(want.ok()) << want.error().message;
  const auto out = (scratchDir("patch_" + GetParam()) / "p.npz").string();
  const auto r =
      runCli({"patch", "--model", modelDir(GetParam()), "--clean", kClean, "--corrupt", kCorrupt, "--target",
              fmt::format("#{}", p.target), "--foil", fmt::format("#{}", p.foil), "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("residual stream, top 5"), std::string::npos) << r.out;
  auto z = readNpzFile(out);
  ASSERT_TRUE(z.ok()) << z.error().message;
  for (const char* name : {"residual", "heads", "mlp", "clean_diff", "corrupt_diff", "clean_tokens"})
    ASSERT_TRUE(patchMember(*z, name)) << name;
  // Another process, the same engine build: equal to float rounding.
  EXPECT_LE(diffTo(*patchMember(*z, "residual"), want->residual), 1e-5);
  EXPECT_LE(diffTo(*patchMember(*z, "heads"), want->heads), 1e-5);
  EXPECT_LE(diffTo(*patchMember(*z, "mlp"), want->mlp), 1e-5);
  EXPECT_NEAR(patchMember(*z, "clean_diff")->values.data.at(0), want->cleanDiff, 1e-4);
  EXPECT_NEAR(patchMember(*z, "corrupt_diff")->values.data.at(0), want->corruptDiff, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CliPatch, ::testing::Values("gpt2", "llama"));

TEST(CliPatchOptions, JsonAndSites) {
  const Pair p = pairFor("gpt2");
  ASSERT_TRUE(p.model);
  const auto r = runCli({"patch", "--model", modelDir("gpt2"), "--clean", kClean, "--corrupt", kCorrupt,
                         "--target", fmt::format("#{}", p.target), "--foil", fmt::format("#{}", p.foil),
                         "--sites", "heads", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_FALSE(doc.contains("residual"));
  EXPECT_FALSE(doc.contains("mlp"));
  ASSERT_EQ(doc["heads"].size(), static_cast<size_t>(p.model->info().layers));
  EXPECT_EQ(doc["heads"][0].size(), static_cast<size_t>(p.model->info().heads));
  EXPECT_EQ(doc["target"]["id"].get<int>(), p.target);
  // The fraction's two ends are the runs' own differences.
  EXPECT_GT(std::abs(doc["clean_diff"].get<double>() - doc["corrupt_diff"].get<double>()), 1e-6);
}

TEST(CliPatchOptions, OneClearMessageForWhatCannotBePatched) {
  const auto base = std::vector<std::string>{"patch", "--model", modelDir("gpt2"), "--clean", kClean};
  auto with = [&](std::vector<std::string> rest) {
    auto a = base;
    a.insert(a.end(), rest.begin(), rest.end());
    return runCli(a);
  };
  auto r = with({"--corrupt", "The dog sat on the mat", "--target", "#1", "--foil", "#2"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("same number"), std::string::npos) << r.err;
  r = with({"--corrupt", kCorrupt, "--target", "the cat sat", "--foil", "#2"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--target \"the cat sat\" is"), std::string::npos) << r.err;
  r = with({"--corrupt", kCorrupt, "--target", "#999999", "--foil", "#2"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("not a token id"), std::string::npos) << r.err;
  r = with({"--corrupt", kCorrupt, "--target", "#1", "--foil", "#2", "--sites", "attention"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("unknown site"), std::string::npos) << r.err;
  r = runCli({"patch", "--model", modelDir("bert"), "--clean", kClean, "--corrupt", kCorrupt, "--target",
              "#5", "--foil", "#6"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("causal language model"), std::string::npos) << r.err;
}

// Over a JSON-lines file of pairs, each map is the mean of the single pairs' maps with the
// population spread (Wang et al. 2023 average over their prompts); pairs of another length
// leave out the position-indexed maps; a broken row is refused as FILE:LINE.
TEST(CliPatchPairs, TheMeanAndSpreadOfTheSinglePairs) {
  const Pair p = pairFor("gpt2");
  ASSERT_TRUE(p.model);
  constexpr const char* kClean2 = "The cat sat on the mat, and it is";  // 12 tokens, as the first
  constexpr const char* kCorrupt2 = "The mat sat on the cat, and it is";
  auto first = p.model->patch(p.clean, p.corrupt, p.target, p.foil, models::PatchingOptions{});
  auto second = p.model->patch(*p.model->encode(kClean2, std::nullopt, "c"),
                               *p.model->encode(kCorrupt2, std::nullopt, "k"), p.target, p.foil,
                               models::PatchingOptions{});
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_EQ(first->residual.cols(), second->residual.cols());  // the same length: every map averaged
  const auto dir = scratchDir("patch_pairs");
  const auto pairs = dir / "pairs.jsonl";
  const auto row = [&](const char* clean, const char* corrupt) {
    return nlohmann::json{{"clean", clean},
                          {"corrupt", corrupt},
                          {"target", fmt::format("#{}", p.target)},
                          {"foil", fmt::format("#{}", p.foil)}}
        .dump();
  };
  { std::ofstream(pairs) << row(kClean, kCorrupt) << "\n\n" << row(kClean2, kCorrupt2) << "\r\n"; }
  const auto out = (dir / "pairs.npz").string();
  const auto r = runCli({"patch", "--model", modelDir("gpt2"), "--pairs", pairs.string(), "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("2 pairs"), std::string::npos) << r.out;
  auto z = readNpzFile(out);
  ASSERT_TRUE(z.ok()) << z.error().message;
  for (auto [name, a, b] :
       {std::tuple{"residual", &first->residual, &second->residual},
        std::tuple{"heads", &first->heads, &second->heads}, std::tuple{"mlp", &first->mlp, &second->mlp}}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(patchMember(*z, name) && patchMember(*z, std::string(name) + "_std"));
    EXPECT_LE(diffTo(*patchMember(*z, name), (*a + *b) / 2), 1e-5);
    EXPECT_LE(diffTo(*patchMember(*z, std::string(name) + "_std"), (*a - *b).cwiseAbs() / 2), 1e-4);
  }
  const auto* diffs = patchMember(*z, "clean_diff");
  ASSERT_TRUE(diffs);
  ASSERT_EQ(diffs->shape, (std::vector<int64_t>{2}));
  EXPECT_NEAR(diffs->values.data[1], second->cleanDiff, 1e-4);
  // A pair of another length: heads still averaged, the position maps left out.
  {
    std::ofstream(pairs) << row(kClean, kCorrupt) << "\n"
                         << row("The cat sat on the mat and it was", "The mat sat on the cat and it was")
                         << "\n";
  }
  const auto mixed = runCli({"patch", "--model", modelDir("gpt2"), "--pairs", pairs.string(), "--json"});
  ASSERT_EQ(mixed.status, 0) << mixed.err;
  const auto doc = nlohmann::json::parse(mixed.out);
  EXPECT_TRUE(doc.contains("heads"));
  EXPECT_FALSE(doc.contains("residual"));
  EXPECT_FALSE(doc["same_length"].get<bool>());
  // Broken rows: FILE:LINE and what is wrong; no archive written.
  for (const auto& [text, fault] :
       {std::pair<std::string, std::string>{row(kClean, kCorrupt) + "\n{\"clean\": 3}",
                                            "pairs.jsonl:2: \"clean\""},
        {"[1, 2]", "pairs.jsonl:1"},
        {"{\"clean\": {\"x\": 1}}", "pairs.jsonl:1: \"clean\" is missing or not a string"},
        {"{\"clean\": {\"x\": [[[1]]]}}", "pairs.jsonl:1: JSON nested deeper"},
        {"not json", "pairs.jsonl:1"},
        {nlohmann::json{{"clean", kClean}, {"corrupt", "The dog"}, {"target", "#1"}, {"foil", "#2"}}.dump(),
         "pairs.jsonl:1"}}) {
    SCOPED_TRACE(text);
    { std::ofstream(pairs) << text; }
    const auto bad = (dir / "bad.npz").string();
    const auto e = runCli({"patch", "--model", modelDir("gpt2"), "--pairs", pairs.string(), "--out", bad});
    EXPECT_EQ(e.status, 1);
    EXPECT_NE(e.err.find(fault), std::string::npos) << e.err;
    EXPECT_FALSE(std::filesystem::exists(bad));
  }
  const auto both =
      runCli({"patch", "--model", modelDir("gpt2"), "--pairs", pairs.string(), "--clean", kClean});
  EXPECT_NE(both.status, 0);
}

}  // namespace
}  // namespace attn::test
