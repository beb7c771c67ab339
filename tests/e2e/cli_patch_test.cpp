// End-to-end: attnscope-cli patch on the small GPT-2 and Llama fixtures: the arrays of
// the file contract with their shapes, equal to Model::patch in this process; --json;
// --sites; and one clear message for what cannot be patched.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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

}  // namespace
}  // namespace attn::test
