// End-to-end: attnscope-cli on GGUF files. tests/fixtures/gguf/models holds the Hugging Face
// fixture folders converted as llama.cpp's converter does (tests/scripts/gen_gguf_models.py); the
// maps are checked against the folders' plain-PyTorch references (reference.npz), the tokens
// against the tokenizers library's (reference_tokens.json).
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

std::string ggufFixture(const std::string& name) {
  return std::string(ATTN_FIXTURE_DIR) + "/gguf/models/" + name;
}

class CliGgufRun : public ::testing::TestWithParam<std::string> {};

TEST_P(CliGgufRun, MapsAndTokensMatchTheFoldersReference) {
  const std::string model = GetParam();
  std::ifstream tf(modelDir(model) + "/reference_tokens.json");
  const auto cases = nlohmann::json::parse(tf)["cases"];
  auto expected = readNpzFile(modelDir(model) + "/reference.npz");
  ASSERT_TRUE(expected.ok()) << expected.error().message;
  for (int c = 0; c < 2; ++c) {
    SCOPED_TRACE(c);
    const auto& ref = cases[static_cast<size_t>(c)];
    ASSERT_TRUE(ref["pair"].is_null());
    const auto out = (scratchDir("gguf_" + model + std::to_string(c)) / "r.npz").string();
    const auto r = runCli({"run", "--model", ggufFixture(model + "-F32.gguf"), "--text",
                           ref["text"].get<std::string>(), "--out", out});
    ASSERT_EQ(r.status, 0) << r.err;
    auto z = readNpzFile(out);
    ASSERT_TRUE(z.ok()) << z.error().message;
    const auto* w = member(*z, "weights");
    const auto* attn = member(*expected, "attn_" + std::to_string(c));
    ASSERT_TRUE(w && attn);
    ASSERT_EQ(w->shape, attn->shape);
    float worst = 0;
    for (int64_t i = 0; i < attn->values.size(); ++i)
      worst = std::max(worst, std::abs(w->values.data[static_cast<size_t>(i)] -
                                       attn->values.data[static_cast<size_t>(i)]));
    EXPECT_LE(worst, 1e-4f);
    const auto* tokens = member(*z, "tokens");
    ASSERT_NE(tokens, nullptr);
    EXPECT_EQ(tokens->strings, ref["tokens"].get<std::vector<std::string>>());
  }
}

INSTANTIATE_TEST_SUITE_P(Architectures, CliGgufRun, ::testing::Values("llama", "llama3", "qwen2", "gpt2"));

TEST(CliGguf, InfoSaysTheArchitectureAndTheQuantization) {
  const auto r = runCli({"info", ggufFixture("qwen2-Q8_0.gguf")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("family: Llama (qwen2)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dtype: Q8_0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("weights: Q8_0, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" bits/weight\n"), std::string::npos) << r.out;
}

TEST(CliGguf, TruncatedFileIsOneMessageAndNoOutput) {
  const auto dir = scratchDir("gguf_truncated");
  const std::string bytes = readFile(ggufFixture("gpt2-F32.gguf"));
  const auto cut = (dir / "cut.gguf").string();
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, 1000);
  const auto out = (dir / "r.npz").string();
  const auto r = runCli({"run", "--model", cut, "--text", "hello", "--out", out});
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(r.err.rfind("attnscope-cli: error: " + cut + ": ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace attn::test
