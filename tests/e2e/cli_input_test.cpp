// End-to-end: --input FILE, info FILE, --text-file with tokenizers, and bad
// input through the CLI. torch_dump.npz was written by scripts/dump_attention.py
// (torch.nn.MultiheadAttention); the suite itself never runs Python.
#include <gtest/gtest.h>

#include <algorithm>

#include "attn/io/npy_reader.h"
#include "attn/io/npy_writer.h"
#include "attn/io/session.h"
#include "cli_runner.h"
#include "matrix_matchers.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

using attn::test::member;

using attn::test::ioFixture;

std::string example(const std::string& name) { return std::string(ATTN_SOURCE_DIR) + "/resources/examples/" + name; }

TEST(CliInfo, ListsArraysAndViews) {
  const auto r = runCli({"info", ioFixture("torch_dump.npz")});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* s : {"name", "dtype", "shape", "used as", "attn", "<f4", "[2, 2, 12, 12]",
                        "precomputed weights: 2 layer(s) x 2 head(s), 12 x 12", "projected queries: 2 head(s)",
                        "tokens", "<U7", "'x' is not used", "rollout and flow over 2 layers", "step-through"})
    EXPECT_NE(r.out.find(s), std::string::npos) << "missing '" << s << "' in:\n" << r.out;
}

TEST(CliRun, TorchDumpQkvGivesTorchWeights) {
  const auto dir = scratchDir("input_torch");
  const auto out = (dir / "r.npz").string();
  const auto r = runCli({"run", "--input", ioFixture("torch_dump.npz"), "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  auto result = readNpzFile(out);
  auto dump = readNpzFile(ioFixture("torch_dump.npz"));
  ASSERT_TRUE(result.ok() && dump.ok());
  const NpyArray* w = member(*result, "weights");
  const NpyArray* attn = member(*dump, "attn");
  ASSERT_TRUE(w && attn);
  ASSERT_EQ(w->shape, (std::vector<int64_t>{2, 12, 12}));
  // Layer 1 of PyTorch's attention maps = our scaled-dot softmax of the dumped q, k.
  for (int h = 0; h < 2; ++h) EXPECT_MATRIX_NEAR(w->values.slice2d(h), attn->values.slice2d(h), 1e-5f);
  EXPECT_EQ(member(*result, "tokens")->strings.front(), "The");
}

TEST(CliRun, EmbeddingsAndProjectionsFromTheDumpReproduceTorch) {
  // Only x and w_* of the dump: projected here, compared with torch's layer 1 maps.
  const auto dir = scratchDir("input_x");
  const auto out = (dir / "r.npz").string();
  auto dump = readNpzFile(ioFixture("torch_dump.npz")).value();
  NpzWriter only;
  for (const auto& a : dump)
    if (a.name == "x" || a.name.starts_with("w_")) only.add(a.name, a.values);
  const auto in = (dir / "x_only.npz").string();
  ASSERT_TRUE(only.write(in).ok());
  const auto r = runCli({"run", "--input", in, "--heads", "2", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  auto result = readNpzFile(out).value();
  const NpyArray* attn = member(dump, "attn");
  for (int h = 0; h < 2; ++h)
    EXPECT_MATRIX_NEAR(member(result, "weights")->values.slice2d(h), attn->values.slice2d(h), 1e-5f);
}

TEST(CliRun, PrecomputedOnlyWritesWeightsAndEntropy) {
  const auto dir = scratchDir("input_attn");
  const auto out = (dir / "r.npz").string();
  const auto r = runCli({"run", "--input", ioFixture("contract_attn.npz"), "--layer", "2", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("'extra'"), std::string::npos) << r.err;  // unknown array: a warning, not an error
  auto result = readNpzFile(out).value();
  auto src = readNpzFile(ioFixture("contract_attn.npz")).value();
  EXPECT_EQ(member(result, "scores"), nullptr);
  ASSERT_NE(member(result, "entropy"), nullptr);
  EXPECT_EQ(member(result, "entropy")->shape, (std::vector<int64_t>{2, 4}));
  // Layer 2 (1-based) of [3, 2, 4, 5] is slices 2 and 3.
  EXPECT_MATRIX_NEAR(member(result, "weights")->values.slice2d(1), member(src, "attn")->values.slice2d(3), 0.0f);
  EXPECT_EQ(member(result, "key_tokens")->strings, (std::vector<std::string>{"le", "chat", "est", "assis", "."}));
  const auto bad = runCli({"run", "--input", ioFixture("contract_attn.npz"), "--layer", "4", "--out", out, "--force"});
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("--layer: 4 is out of range (1..3)"), std::string::npos) << bad.err;
}

TEST(CliMetrics, InputWithLayersGivesRollout) {
  const auto r = runCli({"metrics", "--input", std::string(ATTN_FIXTURE_DIR) + "/metrics/layers.npz", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"rollout\""), std::string::npos);
  EXPECT_NE(r.out.find("\"n_layers\": 3"), std::string::npos);
  const auto cross = runCli({"metrics", "--input", ioFixture("contract_attn.npz"), "--json"});
  ASSERT_EQ(cross.status, 0) << cross.err;
  EXPECT_NE(cross.out.find("\"n_key\": 5"), std::string::npos) << cross.out;
  const auto csv = runCli({"metrics", "--input", ioFixture("attn_tokens.csv")});
  ASSERT_EQ(csv.status, 0) << csv.err;
}

TEST(CliText, TextFileWithTokenizers) {
  const auto dir = scratchDir("text_file");
  const auto out = (dir / "r.npz").string();
  const auto r = runCli({"run", "--text-file", example("chinese.txt"), "--tokenizer", "chars", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  auto result = readNpzFile(out).value();
  const auto& toks = member(result, "tokens")->strings;
  ASSERT_EQ(toks.size(), 17u);  // 15 Han characters, the comma and the full stop, one token each
  EXPECT_EQ(toks[0], "这");
  EXPECT_EQ(toks[9], "，");

  const auto bpe = runCli({"metrics", "--text", "hello the world!", "--tokenizer", "bpe", "--tokenizer-json",
                           std::string(ATTN_FIXTURE_DIR) + "/tokenizers/bpe_tokenizer.json", "--json"});
  ASSERT_EQ(bpe.status, 0) << bpe.err;
  EXPECT_NE(bpe.out.find("\"n_query\": 6"), std::string::npos) << bpe.out;

  const auto cross = runCli({"run", "--text-file", example("translation_en.txt"), "--key-text-file",
                             example("translation_fr.txt"), "--out", out, "--force"});
  ASSERT_EQ(cross.status, 0) << cross.err;
  EXPECT_NE(cross.out.find("13 x 15"), std::string::npos) << cross.out;

  const auto pad = runCli({"run", "--text-file", example("padding.txt"), "--out", out, "--force"});
  ASSERT_EQ(pad.status, 0) << pad.err;
  auto padded = readNpzFile(out).value();
  EXPECT_EQ(member(padded, "tokens")->strings.back(), "[PAD]");
}

TEST(CliRun, SessionJsonBringsItsInputAndConfiguration) {
  const auto dir = scratchDir("input_session");
  Session s;
  s.input.text = "The cat sat on the mat .";
  s.spec.heads = 2;
  s.spec.mask = Mask::causal();
  const auto json = (dir / "s.json").string();
  ASSERT_TRUE(saveSession(json, s).ok());
  const auto out = (dir / "r.npz").string();
  const auto r = runCli({"run", "--input", json, "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  auto result = readNpzFile(out).value();
  const NpyArray* w = member(result, "weights");
  ASSERT_EQ(w->shape, (std::vector<int64_t>{2, 7, 7}));
  EXPECT_EQ(w->values.slice2d(1)(0, 1), 0.0f);  // causal, from the session

  s.input.text.clear();
  s.input.file = ioFixture("contract_qkv.npz");
  ASSERT_TRUE(saveSession(json, s).ok());
  const auto f = runCli({"run", "--input", json, "--out", out, "--force"});
  ASSERT_EQ(f.status, 0) << f.err;
  EXPECT_EQ(member(readNpzFile(out).value(), "tokens")->strings.back(), ".");
}

TEST(CliErrors, BadInputsGiveOneLineNamingFileAndFault) {
  const auto dir = scratchDir("bad_inputs");
  const auto out = (dir / "r.npz").string();
  struct Case {
    std::vector<std::string> args;
    std::string expect;
  };
  const std::string bad = std::string(ATTN_FIXTURE_DIR) + "/io/bad/";
  for (const Case& c : std::vector<Case>{
           {{"run", "--input", bad + "qk_mismatch.npz", "--out", out}, "'q' [2, 4, 3] and 'k' [2, 4, 5] disagree"},
           {{"run", "--input", bad + "tokens_length.npz", "--out", out}, "'tokens' has 3 tokens"},
           {{"run", "--text-file", bad + "latin1.txt", "--out", out}, "latin1.txt: not valid UTF-8 text (byte offset 3"},
           {{"info", bad + "huge_header.safetensors"}, "header claims 10737418240 bytes"},
           {{"info", bad + "truncated.npy"}, "truncated.npy: header says"},
           {{"info", bad + "empty.npz"}, "empty.npz: file is empty"},
           {{"run", "--text", "a b", "--tokenizer", "wordpiece", "--out", out}, "--tokenizer wordpiece needs --vocab"},
           {{"run", "--out", out}, "give the input"},
           {{"run", "--text", "a", "--input", ioFixture("contract_qkv.npz"), "--out", out}, "excludes"}}) {
    const auto r = runCli(c.args);
    EXPECT_NE(r.status, 0) << c.args[1];
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << "want '" << c.expect << "' in: " << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

}  // namespace
}  // namespace attn::test
