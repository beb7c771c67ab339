// End-to-end: encoder-decoder models on the small random BART, T5 and Flan-T5 folders of
// tests/scripts/gen_seq2seq_fixtures.py. `run --model --target-text` writes the three
// attention kinds of forced decoding as the plain-PyTorch reference computes them;
// `translate` writes the greedy output the reference generates, with its maps; bad input
// (a target text for an encoder-only model, --beam 0, a folder missing its weights, an
// encoder-decoder folder given to a command that reads decoder-only models) is one line
// naming the option or file, with no output file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "attn/io/npy_reader.h"
#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

double worstDiff(const NpyArray& got, const NpyArray& want) {
  EXPECT_EQ(got.values.shape, want.values.shape);
  if (got.values.data.size() != want.values.data.size()) return 1e9;
  return maxAbsDiff(got.values.data.data(), want.values.data, 0, want.values.data.size());
}

TEST(CliTranslate, RunWithTargetTextWritesTheReferenceMaps) {
  const auto dir = scratchDir("translate_run");
  const auto out = (dir / "forced.npz").string();
  const auto r = runCli({"run", "--model", modelDir("bart"), "--text",
                         "The animal didn't cross the street because it was too tired.", "--target-text",
                         "The cat sat on the mat.", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("encoder 2 x 4 heads, decoder 2 x 4 heads"), std::string::npos) << r.out;
  auto got = loadNpz(out);
  auto ref = loadNpz(modelDir("bart") + "/reference.npz");
  for (const auto& [mine, theirs] :
       {std::pair{"encoder_weights", "enc_attn_0"}, std::pair{"decoder_weights", "dec_attn_0"},
        std::pair{"cross_weights", "cross_attn_0"}}) {
    ASSERT_TRUE(got.count(mine)) << mine;
    EXPECT_LE(worstDiff(got.at(mine), ref.at(theirs)), 1e-4) << mine;
  }
  ASSERT_TRUE(got.count("source_tokens") && got.count("target_tokens"));
  EXPECT_EQ(got.at("source_tokens").strings.size(), 15u);
  EXPECT_EQ(got.at("target_tokens").strings.front(), "</s>");
  EXPECT_EQ(got.at("target_tokens").strings[1], "<s>");
  EXPECT_EQ(got.at("target_ids").values.data, ref.at("decoder_ids_0").values.data);
}

TEST(CliTranslate, TranslateWritesTheGreedyOutputAndItsMaps) {
  const auto dir = scratchDir("translate_greedy");
  const auto out = (dir / "t.npz").string();
  const auto r = runCli({"translate", "--model", modelDir("bart"), "--text",
                         "Hello, world! Attention is all you need.", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("no_repeat_ngram_size 3"), std::string::npos) << r.out;
  auto got = loadNpz(out);
  auto ref = loadNpz(modelDir("bart") + "/reference.npz");
  ASSERT_TRUE(got.count("output_ids") && got.count("output_text") && got.count("cross_weights"));
  EXPECT_EQ(got.at("output_ids").values.data, ref.at("greedy_1").values.data);
  const int64_t nt = static_cast<int64_t>(ref.at("greedy_1").values.data.size());
  EXPECT_EQ(got.at("cross_weights").values.shape, (std::vector<int64_t>{2, 4, nt, 12}));
  EXPECT_EQ(got.at("decoder_weights").values.shape, (std::vector<int64_t>{2, 4, nt, nt}));
  EXPECT_EQ(got.at("encoder_weights").values.shape, (std::vector<int64_t>{2, 4, 12, 12}));
  EXPECT_EQ(got.at("target_tokens").strings.size(), static_cast<size_t>(nt));
  ASSERT_EQ(got.at("output_text").strings.size(), 1u);
  EXPECT_FALSE(got.at("output_text").strings[0].empty());
  // Every cross-attention row is a distribution over the source.
  const auto& cw = got.at("cross_weights").values.data;
  for (size_t row = 0; row < cw.size() / 12; ++row) {
    double sum = 0;
    for (size_t j = 0; j < 12; ++j) sum += cw[row * 12 + j];
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
  const auto brief =
      runCli({"translate", "--model", modelDir("bart"), "--text", "Hello, world! Attention is all you need.",
              "--max-new-tokens", "4", "--out", (dir / "short.npz").string()});
  ASSERT_EQ(brief.status, 0) << brief.err;
  EXPECT_EQ(loadNpz((dir / "short.npz").string()).at("output_ids").values.data,
            ref.at("greedy_short_1").values.data);
}

// Beam search's options from the command line: the reference's 4 beams, length_penalty 2 and
// early stopping on case 1 give its best sequence and, with --num-return-sequences, its
// ranked hypotheses and scores; more sequences than beams is one line and no file.
TEST(CliTranslate, BeamOptionsAndReturnedSequencesAsTheReference) {
  const auto dir = scratchDir("translate_beams");
  const auto out = (dir / "beams.npz").string();
  const auto r = runCli({"translate", "--model", modelDir("bart"), "--text",
                         "Hello, world! Attention is all you need.", "--beam", "4", "--length-penalty", "2",
                         "--early-stopping", "true", "--num-return-sequences", "4", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("beam search (4 beams, length_penalty 2, early_stopping true)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  4. "), std::string::npos) << r.out;
  auto got = loadNpz(out);
  auto ref = loadNpz(modelDir("bart") + "/reference.npz");
  EXPECT_EQ(got.at("output_ids").values.data, ref.at("beam_1").values.data);
  ASSERT_TRUE(got.count("returned_ids") && got.count("returned_scores") && got.count("returned_texts"));
  EXPECT_EQ(got.at("returned_ids").values.shape, ref.at("beam_ranked_1").values.shape);
  EXPECT_EQ(got.at("returned_ids").values.data, ref.at("beam_ranked_1").values.data);
  const auto& scores = got.at("returned_scores").values.data;
  ASSERT_EQ(scores.size(), 4u);
  for (size_t k = 0; k < 4; ++k) EXPECT_NEAR(scores[k], ref.at("beam_scores_1").values.data[k], 1e-4);
  EXPECT_EQ(got.at("returned_texts").strings.size(), 4u);
  EXPECT_EQ(got.at("returned_texts").strings[0], got.at("output_text").strings[0]);
  const auto penalty = runCli({"translate", "--model", modelDir("bart"), "--text", "Hello", "--beam", "2",
                               "--length-penalty", "0.5", "--out", (dir / "p.npz").string()});
  ASSERT_EQ(penalty.status, 0) << penalty.err;
  EXPECT_NE(penalty.out.find("length_penalty 0.5"), std::string::npos) << penalty.out;
  const auto tooMany = runCli({"translate", "--model", modelDir("bart"), "--text", "Hello", "--beam", "2",
                               "--num-return-sequences", "3", "--out", (dir / "many.npz").string()});
  EXPECT_NE(tooMany.status, 0);
  EXPECT_NE(tooMany.err.find("number of beams"), std::string::npos) << tooMany.err;
  EXPECT_EQ(std::count(tooMany.err.begin(), tooMany.err.end(), '\n'), 1) << tooMany.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "many.npz"));
}

// mBART's languages from the command line: ro_RO as the source's code, en_XX written first.
TEST(CliTranslate, MbartSourceAndTargetLanguages) {
  const auto dir = scratchDir("translate_mbart_lang");
  const auto out = (dir / "ro_en.npz").string();
  std::ifstream in(modelDir("mbart") + "/reference_tokens.json");
  const std::string source = nlohmann::json::parse(in)["cases"][0]["source"].get<std::string>();
  const auto r = runCli({"translate", "--model", modelDir("mbart"), "--text", source, "--beam", "1",
                         "--source-lang", "ro_RO", "--target-lang", "en_XX", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  auto got = loadNpz(out);
  auto ref = loadNpz(modelDir("mbart") + "/reference.npz");
  EXPECT_EQ(got.at("source_ids").values.data, ref.at("source_ro_0").values.data);
  EXPECT_EQ(got.at("output_ids").values.data, ref.at("greedy_en_0").values.data);
  const auto bad = runCli({"translate", "--model", modelDir("mbart"), "--text", source, "--target-lang",
                           "de_DE", "--out", (dir / "de.npz").string()});
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("\"de_DE\" is not a language code"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "de.npz"));
}

TEST(CliTranslate, T5AndFlanT5TranslateAndRunAsTheReference) {
  const auto dir = scratchDir("translate_t5");
  const std::string source = "translate English to German: The cat sat on the mat.";
  for (const std::string name : {"t5", "flan_t5"}) {
    SCOPED_TRACE(name);
    auto ref = loadNpz(modelDir(name) + "/reference.npz");
    const auto out = (dir / (name + ".npz")).string();
    const auto r = runCli({"translate", "--model", modelDir(name), "--text", source, "--out", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("decoder_start_token_id 0"), std::string::npos) << r.out;
    auto got = loadNpz(out);
    ASSERT_TRUE(got.count("output_ids") && got.count("cross_weights"));
    EXPECT_EQ(got.at("output_ids").values.data, ref.at("greedy_0").values.data);
    EXPECT_EQ(got.at("source_ids").values.data, ref.at("source_ids_0").values.data);
    const auto forcedOut = (dir / (name + "_forced.npz")).string();
    const auto f = runCli({"run", "--model", modelDir(name), "--text", source, "--target-text",
                           "Die Katze saß auf der Matte.", "--out", forcedOut});
    ASSERT_EQ(f.status, 0) << f.err;
    auto forced = loadNpz(forcedOut);
    for (const auto& [mine, theirs] :
         {std::pair{"encoder_weights", "enc_attn_0"}, std::pair{"decoder_weights", "dec_attn_0"},
          std::pair{"cross_weights", "cross_attn_0"}}) {
      ASSERT_TRUE(forced.count(mine)) << mine;
      EXPECT_LE(worstDiff(forced.at(mine), ref.at(theirs)), 1e-4) << mine;
    }
    EXPECT_EQ(forced.at("target_tokens").strings.front(), "<pad>");  // decoding starts at the pad token
    EXPECT_EQ(forced.at("target_tokens").strings.back(), "</s>");
  }
}

TEST(CliTranslate, MbartForcesTheTargetLanguageCode) {
  const auto dir = scratchDir("translate_mbart");
  const auto out = (dir / "m.npz").string();
  const auto r = runCli({"translate", "--model", modelDir("mbart"), "--text",
                         "Hello, world! Attention is all you need.", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("forced_bos_token_id 402"), std::string::npos) << r.out;
  auto got = loadNpz(out);
  auto ref = loadNpz(modelDir("mbart") + "/reference.npz");
  EXPECT_EQ(got.at("output_ids").values.data, ref.at("greedy_1").values.data);
  EXPECT_EQ(got.at("target_tokens").strings[1], "ro_RO");
  EXPECT_EQ(got.at("source_tokens").strings.front(), "en_XX");
}

TEST(CliTranslate, BeamSearchWritesTheReferenceBeamOutput) {
  const auto dir = scratchDir("translate_beam");
  const auto out = (dir / "b.npz").string();
  const auto r =
      runCli({"translate", "--model", modelDir("marian"), "--text",
              "The animal didn't cross the street because it was too tired.", "--beam", "4", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("beam search (4 beams, length_penalty 1, early_stopping false)"), std::string::npos)
      << r.out;
  auto got = loadNpz(out);
  auto ref = loadNpz(modelDir("marian") + "/reference.npz");
  EXPECT_EQ(got.at("output_ids").values.data, ref.at("beam_0").values.data);
  const int64_t nt = static_cast<int64_t>(ref.at("beam_0").values.data.size());
  EXPECT_EQ(got.at("cross_weights").values.shape[2], nt);
}

TEST(CliTranslate, InfoDescribesBothStacksAndTheGenerationSettings) {
  const auto r = runCli({"info", modelDir("marian")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("(marian, encoder-decoder)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("encoder: 2 layers x 4 heads; decoder: 2 layers x 4 heads"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("SentencePiece"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("decoder_start_token_id 136"), std::string::npos) << r.out;
}

TEST(CliTranslate, BadInputIsOneLineNamingTheOptionOrFile) {
  const auto dir = scratchDir("translate_errors");
  const auto out = (dir / "x.npz").string();
  const auto noWeights = dir / "bart_noweights";
  std::filesystem::copy(modelDir("bart"), noWeights);
  std::filesystem::remove(noWeights / "model.safetensors");
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::string bart = modelDir("bart");
  for (const Case& c : std::vector<Case>{
           {{"run", "--model", modelDir("bert"), "--text", "a b", "--target-text", "c", "--out", out},
            "--target-text: " + modelDir("bert") + " is not an encoder-decoder model"},
           {{"translate", "--model", bart, "--text", "Hello", "--beam", "0", "--out", out},
            "--beam: 0 is out of range"},
           {{"translate", "--model", bart, "--text", "Hello", "--beam", "9", "--out", out},
            "--beam: 9 is out of range (1 to 8)"},
           {{"translate", "--model", bart, "--text", "Hello", "--max-new-tokens", "-3", "--out", out},
            "--max-new-tokens"},
           {{"translate", "--model", modelDir("gpt2"), "--text", "Hello", "--out", out},
            "not an encoder-decoder model"},
           {{"translate", "--model", noWeights.string(), "--text", "Hello", "--out", out},
            "model.safetensors: no such file"},
           {{"run", "--model", bart, "--text", "Hello", "--out", out}, "give the target with --target-text"},
           {{"metrics", "--model", bart, "--text", "Hello"}, "is an encoder-decoder (translation) model"},
           {{"lens", "--model", bart, "--text", "Hello", "--out", out},
            "is an encoder-decoder (translation) model"},
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
