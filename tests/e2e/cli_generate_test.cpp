// End-to-end: `generate` on the small random GPT-2 and Llama folders writes the ids of
// tests/scripts/gen_generate_fixtures.py's greedy and beam search (transformers' generate on
// plain-PyTorch ports, a full re-run per token) and the attention of the final sequence;
// sampling and beam sampling repeat with their seed; `translate --do-sample` samples too; bad options, BERT
// and encoder-decoder folders are one line naming the option or the command to use, with no file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "attn/io/npy_reader.h"
#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

double worstGenerateDiff(const NpyArray& got, const NpyArray& want) {
  EXPECT_EQ(got.values.shape, want.values.shape);
  if (got.values.data.size() != want.values.data.size()) return 1e9;
  return maxAbsDiff(got.values.data.data(), want.values.data, 0, want.values.data.size());
}

TEST(CliGenerate, GreedyAndBeamSearchAsTheReference) {
  const auto dir = scratchDir("generate_reference");
  struct Case {
    std::string model, text;
    std::vector<std::string> options;
    std::string refCase, says;
  };
  for (const Case& c : std::vector<Case>{
           {"gpt2",
            "The animal didn't cross the street because it was too tired.",
            {"--max-new-tokens", "12"},
            "0",
            "greedy; eos_token_id 516, max_length 29 (prompt + max new tokens)"},
           {"llama",
            "The animal didn't cross the street because it was too tired.",
            {"--max-new-tokens", "8", "--beam", "3", "--no-repeat-ngram-size", "2"},
            "2",
            "beam search (3 beams, length_penalty 1, early_stopping false)"},
       }) {
    const auto out = (dir / (c.model + ".npz")).string();
    std::vector<std::string> args{"generate", "--model", modelDir(c.model), "--text", c.text, "--out", out};
    args.insert(args.end(), c.options.begin(), c.options.end());
    const auto r = runCli(args);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << r.out;
    auto got = loadNpz(out);
    auto ref = loadNpz(modelDir(c.model) + "/reference_generate.npz");
    ASSERT_TRUE(got.count("output_ids") && got.count("weights") && got.count("tokens") &&
                got.count("output_text"));
    EXPECT_EQ(got.at("output_ids").values.data, ref.at("ids_" + c.refCase).values.data) << c.model;
    EXPECT_LE(worstGenerateDiff(got.at("weights"), ref.at("attn_" + c.refCase)), 1e-4) << c.model;
    EXPECT_EQ(got.at("tokens").strings.size(), ref.at("ids_" + c.refCase).values.data.size());
    ASSERT_EQ(got.at("output_text").strings.size(), 1u);
    EXPECT_EQ(got.at("prompt_length").values.data.at(0),
              static_cast<float>(ref.at("prompt_" + c.refCase).values.data.size()));
  }
}

TEST(CliGenerate, SamplingRepeatsWithItsSeed) {
  const auto dir = scratchDir("generate_sampling");
  std::vector<std::vector<float>> ids;
  for (const char* seed : {"4", "4", "5"}) {
    const auto out = (dir / (std::string("s") + std::to_string(ids.size()) + ".npz")).string();
    const auto r = runCli({"generate", "--model", modelDir("gpt2"), "--text", "Hello, world!",
                           "--max-new-tokens", "12", "--do-sample", "--top-k", "20", "--top-p", "0.9",
                           "--temperature", "1.3", "--seed", seed, "--out", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find(std::string("sampling (top_k 20, top_p 0.9, temperature 1.3, seed ") + seed + ")"),
              std::string::npos)
        << r.out;
    ids.push_back(loadNpz(out).at("output_ids").values.data);
  }
  EXPECT_EQ(ids[0], ids[1]);
  EXPECT_NE(ids[0], ids[2]);
  const auto t = (dir / "t.npz").string();
  const auto tr = runCli({"translate", "--model", modelDir("bart"), "--text", "Hello, world!", "--do-sample",
                          "--temperature", "1.5", "--seed", "2", "--out", t});
  ASSERT_EQ(tr.status, 0) << tr.err;
  EXPECT_NE(tr.out.find("sampling (top_k 50, top_p 1, temperature 1.5, seed 2)"), std::string::npos)
      << tr.out;
}

TEST(CliGenerate, BeamSamplingRepeatsWithItsSeed) {
  // --do-sample with --beam K: transformers' beam sampling, in both commands.
  const auto dir = scratchDir("generate_beam_sampling");
  std::vector<std::vector<float>> ids;
  for (const char* seed : {"4", "4", "5"}) {
    const auto out = (dir / (std::string("b") + std::to_string(ids.size()) + ".npz")).string();
    const auto r =
        runCli({"generate", "--model", modelDir("llama"), "--text", "Hello, world!", "--max-new-tokens", "8",
                "--do-sample", "--beam", "3", "--temperature", "1.3", "--seed", seed, "--out", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("beam sampling (3 beams"), std::string::npos) << r.out;
    ids.push_back(loadNpz(out).at("output_ids").values.data);
  }
  EXPECT_EQ(ids[0], ids[1]);
  EXPECT_NE(ids[0], ids[2]);
  const auto t = (dir / "t.npz").string();
  const auto tr = runCli({"translate", "--model", modelDir("marian"), "--text", "Hello, world!",
                          "--do-sample", "--beam", "2", "--temperature", "1.5", "--seed", "2", "--out", t});
  ASSERT_EQ(tr.status, 0) << tr.err;
  EXPECT_NE(tr.out.find("beam sampling (2 beams"), std::string::npos) << tr.out;
  EXPECT_NE(tr.out.find("temperature 1.5, seed 2)"), std::string::npos) << tr.out;
}

TEST(CliGenerate, BadInputIsOneLineNamingTheOption) {
  const auto dir = scratchDir("generate_errors");
  const auto out = (dir / "x.npz").string();
  const std::string gpt2 = modelDir("gpt2");
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  for (const Case& c : std::vector<Case>{
           {{"generate", "--model", gpt2, "--text", "Hi", "--beam", "0", "--out", out},
            "--beam: 0 is out of range"},
           {{"generate", "--model", gpt2, "--text", "Hi", "--beam", "9", "--out", out},
            "--beam: 9 is out of range"},
           {{"generate", "--model", gpt2, "--text", "Hi", "--do-sample", "--top-p", "0", "--out", out},
            "--top-p: 0"},
           {{"generate", "--model", gpt2, "--text", "Hi", "--do-sample", "--top-p", "1.5", "--out", out},
            "--top-p: 1.5"},
           {{"generate", "--model", gpt2, "--text", "Hi", "--do-sample", "--temperature", "0", "--out", out},
            "--temperature: 0 must be greater than 0"},
           {{"generate", "--model", gpt2, "--text", "Hi", "--do-sample", "--temperature", "-1", "--out", out},
            "--temperature: -1"},
           {{"generate", "--model", gpt2, "--text", "Hi", "--do-sample", "--greedy", "--out", out},
            "--do-sample and --greedy exclude each other"},
           {{"generate", "--model", gpt2, "--text", "Hi", "--max-new-tokens", "-2", "--out", out},
            "--max-new-tokens"},
           {{"generate", "--model", modelDir("bert"), "--text", "Hi", "--out", out},
            "generate needs a causal language model"},
           {{"generate", "--model", modelDir("bart"), "--text", "Hi", "--out", out},
            "use `attnscope-cli translate`"},
           {{"translate", "--model", modelDir("bart"), "--text", "Hi", "--do-sample", "--top-p", "0", "--out",
             out},
            "--top-p: 0"},
           {{"translate", "--model", gpt2, "--text", "Hi", "--out", out}, "attnscope-cli generate"},
       }) {
    const auto r = runCli(c.args);
    EXPECT_NE(r.status, 0) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.says;
  }
}

}  // namespace
}  // namespace attn::test
