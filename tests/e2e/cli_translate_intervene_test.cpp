// End-to-end: --intervene STACK:KIND:L.H on the small random BART folder. `run --target-text`
// and `translate` with one head ablated write what tests/scripts/gen_seq2seq_fixtures.py's
// plain-PyTorch port computes with Hugging Face's cross_attn_head_mask (interventions.npz);
// an intervention without a stack on an encoder-decoder model, or with one on a causal model,
// or naming a layer the stack lacks, is one line naming it, with no output file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "attn/io/npy_reader.h"
#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

const char* kIvSource = "The animal didn't cross the street because it was too tired.";

std::string ablatedCrossSpec() {
  const auto at = loadNpz(modelDir("bart") + "/interventions.npz").at("ablated_cross").values.data;
  return "cross:ablate:" + std::to_string(static_cast<int>(at[0]) + 1) + "." +
         std::to_string(static_cast<int>(at[1]) + 1);
}

TEST(CliTranslateIntervene, RunWithTargetTextWritesTheAblatedMaps) {
  const auto dir = scratchDir("translate_intervene_run");
  const auto out = (dir / "forced.npz").string();
  const std::string spec = ablatedCrossSpec();
  const auto r = runCli({"run", "--model", modelDir("bart"), "--text", kIvSource, "--target-text",
                         "The cat sat on the mat.", "--intervene", spec, "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("settings: forced decoding; interventions " + spec), std::string::npos) << r.out;
  auto got = loadNpz(out);
  auto ref = loadNpz(modelDir("bart") + "/interventions.npz");
  for (const auto& [mine, theirs] :
       {std::pair{"encoder_weights", "cross_enc_attn"}, std::pair{"decoder_weights", "cross_dec_attn"},
        std::pair{"cross_weights", "cross_cross_attn"}}) {
    ASSERT_TRUE(got.count(mine)) << mine;
    const auto& g = got.at(mine).values;
    const auto& w = ref.at(theirs).values;
    ASSERT_EQ(g.shape, w.shape) << mine;
    EXPECT_LE(maxAbsDiff(g.data.data(), w.data, 0, w.data.size()), 1e-4) << mine;
  }
  ASSERT_TRUE(got.count("interventions"));
  EXPECT_EQ(got.at("interventions").strings, std::vector<std::string>{spec});
}

TEST(CliTranslateIntervene, TranslateWritesTheGreedyOutputWithTheHeadAblated) {
  const auto dir = scratchDir("translate_intervene_greedy");
  const auto out = (dir / "t.npz").string();
  const std::string spec = ablatedCrossSpec();
  const auto r = runCli({"translate", "--model", modelDir("bart"), "--text", kIvSource, "--beam", "1",
                         "--intervene", spec, "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("; interventions " + spec), std::string::npos) << r.out;
  const auto want = loadNpz(modelDir("bart") + "/interventions.npz").at("cross_greedy").values.data;
  EXPECT_EQ(loadNpz(out).at("output_ids").values.data, want);
}

TEST(CliTranslateIntervene, WrongStackOrModelKindIsOneLineAndNoFile) {
  const auto dir = scratchDir("translate_intervene_bad");
  const auto out = (dir / "bad.npz").string();
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"translate", "--model", modelDir("bart"), "--text", kIvSource, "--intervene", "ablate:1.1"},
       "--intervene 'ablate:1.1': "},
      {{"translate", "--model", modelDir("bart"), "--text", kIvSource, "--intervene", "cross:ablate:3.1"},
       "intervention 'cross:ablate:3.1': layer 3 does not exist (the cross-attention has layers 1 to 2)"},
      {{"run", "--model", modelDir("bart"), "--text", kIvSource, "--target-text", "Hi", "--intervene",
        "middle:ablate:1.1"},
       "name the stack first (encoder:middle:ablate:1.1, "},
      {{"run", "--model", modelDir("gpt2"), "--text", "Hello world", "--intervene", "encoder:ablate:1.1"},
       "--intervene 'encoder:ablate:1.1': encoder:, decoder: and cross: name the stacks of an "
       "encoder-decoder"},
  };
  for (auto c : cases) {
    c.args.insert(c.args.end(), {"--out", out});
    const auto r = runCli(c.args);
    EXPECT_NE(r.status, 0) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.says;
  }
}

}  // namespace
}  // namespace attn::test
