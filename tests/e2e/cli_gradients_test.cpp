// End-to-end: attnscope-cli gradients on the small GPT-2 and Llama fixtures against the
// PyTorch autograd reference (reference_gradients.npz, tests/scripts/gen_gradient_fixtures.py,
// on the same text's ids): the arrays of the file contract with their shapes and values, the
// table, and one clear message for a target that is not one token and for a family without a
// backward pass.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "attn/io/npy_reader.h"
#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

// The reference case 0 of gen_model_fixtures.py (its ids are reference_gradients.npz's).
constexpr const char* kGradText = "The animal didn't cross the street because it was too tired.";

double gradFileDiff(const NpyArray& got, const NpyArray& want) {
  EXPECT_EQ(got.shape, want.shape) << got.name;
  double worst = 0;
  for (size_t i = 0; i < got.values.data.size() && i < want.values.data.size(); ++i)
    worst = std::max(worst, std::abs(static_cast<double>(got.values.data[i]) - want.values.data[i]));
  return worst;
}

class CliGradients : public ::testing::TestWithParam<std::string> {};

TEST_P(CliGradients, WritesTheContractArraysEqualToPyTorchAutograd) {
  const auto ref = loadNpz(modelDir(GetParam()) + "/reference_gradients.npz");
  const int target = static_cast<int>(ref.at("target").values.data.at(0));
  const auto out = (scratchDir("gradients_" + GetParam()) / "g.npz").string();
  const auto r = runCli({"gradients", "--model", modelDir(GetParam()), "--text", kGradText, "--target",
                         "#" + std::to_string(target), "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("integrated gradients: 32 steps"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("grad x input"), std::string::npos) << r.out;
  const auto got = loadNpz(out);
  const auto n = static_cast<int64_t>(ref.at("ids").values.data.size());
  ASSERT_TRUE(got.count("grad_x_input") && got.count("integrated_gradients") && got.count("attn_grad"));
  EXPECT_EQ(got.at("grad_x_input").shape, (std::vector<int64_t>{n}));
  EXPECT_LE(gradFileDiff(got.at("grad_x_input"), ref.at("grad_x_input")), 1e-4);
  double igScale = 1;
  for (float v : ref.at("integrated_gradients").values.data) igScale = std::max(igScale, std::abs(double{v}));
  EXPECT_LE(gradFileDiff(got.at("integrated_gradients"), ref.at("integrated_gradients")), 1e-3 * igScale);
  EXPECT_EQ(got.at("attn_grad").shape.size(), 4u);
  EXPECT_LE(gradFileDiff(got.at("attn_grad"), ref.at("attn_grad")), 1e-4);
  EXPECT_LE(gradFileDiff(got.at("input_grad"), ref.at("input_grad")), 1e-4);
  EXPECT_EQ(got.at("tokens").shape, (std::vector<int64_t>{n}));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CliGradients, ::testing::Values("gpt2", "llama"));

TEST(CliGradientsErrors, OneClearMessageAndNoFile) {
  const auto dir = scratchDir("gradients_errors");
  const auto out = (dir / "g.npz").string();
  auto r = runCli({"gradients", "--model", modelDir("gpt2"), "--text", kGradText, "--target", "the street",
                   "--out", out});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--target \"the street\" is"), std::string::npos) << r.err;
  r = runCli(
      {"gradients", "--model", modelDir("gpt2"), "--text", kGradText, "--target", ".", "--steps", "0"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--steps"), std::string::npos) << r.err;
  r = runCli(
      {"gradients", "--model", modelDir("bert_legacy"), "--text", "the cat", "--target", "#5", "--out", out});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("GPT-2 and Llama families"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  r = runCli({"gradients", "--model", modelDir("gpt2"), "--text", kGradText, "--target", "."});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("target \".\" (#46)"), std::string::npos) << r.out;
  r = runCli(
      {"gradients", "--model", modelDir("gpt2"), "--text", kGradText, "--target", ".", "--position", "99"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("outside the text"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace attn::test
