// End-to-end: attnscope-cli gradients --target-text on the small random Marian and T5 folders
// against the float64 PyTorch autograd reference (reference_gradients.npz,
// tests/scripts/gen_seq2seq_gradient_fixtures.py, on reference case 0's texts): the arrays of
// the encoder-decoder file contract with their shapes and values, and one clear message for a
// missing target text, a target text on a causal model and a target of several tokens.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attn/io/npy_reader.h"
#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

std::pair<std::string, std::string> seq2seqCaseTexts(const std::string& name) {
  std::ifstream in(modelDir(name) + "/reference_tokens.json");
  const auto c = nlohmann::json::parse(in)["cases"][0];
  return {c["source"].get<std::string>(), c["target"].get<std::string>()};
}

double seq2seqFileDiff(const NpyArray& got, const NpyArray& want) {
  EXPECT_EQ(got.shape, want.shape) << got.name;
  EXPECT_EQ(got.values.data.size(), want.values.data.size()) << got.name;
  double worst = 0;
  for (size_t i = 0; i < got.values.data.size() && i < want.values.data.size(); ++i)
    worst = std::max(worst, std::abs(static_cast<double>(got.values.data[i]) - want.values.data[i]));
  return worst;
}

/// max(1, largest |value|): the tolerances are relative beyond 1 (gradient x input grows with
/// Marian's scaled embeddings).
double seq2seqScale(const NpyArray& a) {
  double m = 1;
  for (float v : a.values.data) m = std::max(m, std::abs(double{v}));
  return m;
}

class CliSeq2SeqGradients : public ::testing::TestWithParam<std::string> {};

TEST_P(CliSeq2SeqGradients, WritesTheEncoderDecoderArraysEqualToPyTorchAutograd) {
  const auto ref = loadNpz(modelDir(GetParam()) + "/reference_gradients.npz");
  const auto [source, target] = seq2seqCaseTexts(GetParam());
  const auto out = (scratchDir("s2s_gradients_" + GetParam()) / "g.npz").string();
  const auto r = runCli({"gradients", "--model", modelDir(GetParam()), "--text", source, "--target-text",
                         target, "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("integrated gradients: 32 steps"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(#" + std::to_string(static_cast<int>(ref.at("target").values.data.at(0))) + ")"),
            std::string::npos)
      << r.out;
  const auto got = loadNpz(out);
  for (const char* name : {"grad_x_input_source", "grad_x_input_target", "attn_grad_encoder",
                           "attn_grad_decoder", "attn_grad_cross", "source_grad", "target_grad"}) {
    ASSERT_TRUE(got.count(name)) << name;
    EXPECT_LE(seq2seqFileDiff(got.at(name), ref.at(name)), 1e-4 * seq2seqScale(ref.at(name))) << name;
  }
  for (const char* name : {"integrated_gradients_source", "integrated_gradients_target"}) {
    ASSERT_TRUE(got.count(name)) << name;
    EXPECT_LE(seq2seqFileDiff(got.at(name), ref.at(name)), 1e-3 * seq2seqScale(ref.at(name))) << name;
  }
  EXPECT_EQ(got.at("source_ids").values.data, ref.at("source_ids").values.data);
  EXPECT_EQ(got.at("target_ids").values.data, ref.at("decoder_ids").values.data);
  EXPECT_EQ(got.at("source_tokens").shape, got.at("grad_x_input_source").shape);
  EXPECT_EQ(got.at("target_tokens").shape, got.at("grad_x_input_target").shape);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CliSeq2SeqGradients, ::testing::Values("marian", "t5"));

TEST(CliSeq2SeqGradientsErrors, OneClearMessageAndNoFile) {
  const auto out = (scratchDir("s2s_gradients_errors") / "g.npz").string();
  const auto [source, target] = seq2seqCaseTexts("t5");
  auto r = runCli({"gradients", "--model", modelDir("t5"), "--text", source, "--out", out});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("is an encoder-decoder model: give the decoder's text with --target-text"),
            std::string::npos)
      << r.err;
  r = runCli({"gradients", "--model", modelDir("t5"), "--text", source, "--target-text", target, "--target",
              "Die Katze saß", "--out", out});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("tokens for the target tokenizer"), std::string::npos) << r.err;
  r = runCli({"gradients", "--model", modelDir("t5"), "--text", source, "--target-text", target, "--position",
              "99", "--out", out});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("position 99 is outside the decoder's"), std::string::npos) << r.err;
  r = runCli(
      {"gradients", "--model", modelDir("gpt2"), "--text", "the cat", "--target-text", "x", "--out", out});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--target-text:"), std::string::npos) << r.err;
  r = runCli({"gradients", "--model", modelDir("gpt2"), "--text", "the cat", "--out", out});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--target is required"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  r = runCli({"gradients", "--model", modelDir("t5"), "--text", source, "--target-text", target, "--target",
              "#5", "--position", "2", "--steps", "2"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("(#5): logit"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("at decoder position 2"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace attn::test
