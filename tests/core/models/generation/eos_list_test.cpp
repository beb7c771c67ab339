// eos_token_id given as a list (Llama 3 Instruct's [128001, 128009]): transformers stops at any
// id of the list (EosTokenCriteria; the beam scorer closes a hypothesis on any of them). The
// greedy ids of the llama fixture come from tests/scripts/gen_generate_fixtures.py's port; a
// list whose second id is the third token greedy decoding writes must end the text right there,
// for generate (greedy, sampling with top-k 1, beam search) and translate.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attn/models/generation/causal_generation.h"
#include "attn/models/model.h"
#include "attn/models/seq2seq/greedy_search.h"
#include "attn/models/seq2seq/seq2seq_config.h"
#include "attn/models/seq2seq/seq2seq_model.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

namespace fs = std::filesystem;
using attn::test::loadNpz;
using attn::test::modelDir;

/// A copy of fixture `name` (without its .npz) whose generation_config.json (kept, or {}) has
/// `key` (eos_token_id unless said) set to `eos`.
fs::path eosListFolder(const std::string& name, const nlohmann::json& eos, const std::string& tag,
                       const std::string& key = "eos_token_id") {
  const fs::path dir =
      fs::temp_directory_path() / ("attn_eos_list_" + name + "_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(modelDir(name)))
    if (e.path().extension() != ".npz") fs::copy_file(e.path(), dir / e.path().filename());
  nlohmann::json g = nlohmann::json::object();
  if (fs::exists(dir / "generation_config.json")) {
    std::ifstream in(dir / "generation_config.json");
    std::stringstream ss;
    ss << in.rdbuf();
    g = nlohmann::json::parse(ss.str());
  }
  g[key] = eos;
  std::ofstream(dir / "generation_config.json", std::ios::trunc) << g.dump();
  return dir;
}

std::vector<int> eosListInts(const NpyArray& a) {
  std::vector<int> out;
  for (float v : a.values.data) out.push_back(static_cast<int>(v));
  return out;
}

Encoding eosListEncoding(const Model& m, const std::vector<int>& ids) {
  Encoding e;
  e.ids = ids;
  for (int id : ids) e.tokens.push_back(m.tokenizer().idToToken(id));
  e.typeIds.assign(ids.size(), 0);
  e.special.assign(ids.size(), 0);
  return e;
}

TEST(GenerationEosList, ReadsEveryIdAndPrintsTheList) {
  GenerationSettings g;
  ASSERT_TRUE(readGenerationConfig(R"({"eos_token_id": [7, 9]})", "g.json", 16, g).ok());
  EXPECT_EQ(g.eosTokenId, 7);
  EXPECT_TRUE(g.isEos(7));
  EXPECT_TRUE(g.isEos(9));
  EXPECT_FALSE(g.isEos(8));
  EXPECT_EQ(g.eosText(), "[7, 9]");
  // generation_config.json's single id replaces config.json's list, as transformers reads it.
  ASSERT_TRUE(readGenerationConfig(R"({"eos_token_id": 3})", "g.json", 16, g).ok());
  EXPECT_FALSE(g.isEos(9));
  EXPECT_EQ(g.eosText(), "3");
  auto bad = readGenerationConfig(R"({"eos_token_id": [7, 99]})", "g.json", 16, g);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "g.json: 'eos_token_id' is 99, expected -1 to 15");
  bad = readGenerationConfig(R"({"eos_token_id": []})", "g.json", 16, g);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "g.json: 'eos_token_id' must be a token id or a list of 1 to 1024 ids");
}

TEST(GenerationEosList, GenerateStopsAtTheListsSecondId) {
  auto ref = loadNpz(modelDir("llama") + "/reference_generate.npz");
  const std::vector<int> prompt = eosListInts(ref.at("prompt_0")), greedy = eosListInts(ref.at("ids_0"));
  ASSERT_EQ(ref.at("settings_0").values.data[1], 1.0f);  // case 0 is greedy, eos 2 never written
  ASSERT_GT(greedy.size(), prompt.size() + 3);
  const int stop = greedy[prompt.size() + 2];  // the third token written
  for (size_t i = prompt.size(); i < prompt.size() + 2; ++i) ASSERT_NE(greedy[i], stop);
  const std::vector<int> want(greedy.begin(),
                              greedy.begin() + static_cast<std::ptrdiff_t>(prompt.size() + 3));
  auto opened = Model::open(eosListFolder("llama", {2, stop}, "greedy").string());
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  const Model& m = **opened;
  CausalGenerateOptions o;
  o.maxNewTokens = 12;
  o.beams = 1;
  auto run = m.generate(eosListEncoding(m, prompt), o);
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(run->ids, want) << run->settings;
  EXPECT_NE(run->settings.find("eos_token_id [2, " + std::to_string(stop) + "]"), std::string::npos)
      << run->settings;
  // Sampling from the top 1 is greedy: the same stop.
  o.doSample = true;
  o.topK = 1;
  run = m.generate(eosListEncoding(m, prompt), o);
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(run->ids, want);
  // Beam search closes hypotheses on either id. `stop` is now a token the beams write with eos 2
  // alone: with [2, stop] it may not appear inside the text, and [2, stop] and [stop, 2] keep the
  // same sequence, differing only in the id appended to a hypothesis that closed early (the
  // list's first, as the scorer's finalize).
  o.doSample = false;
  o.beams = 2;
  auto plain = Model::open(eosListFolder("llama", 2, "plain").string());
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  auto beamPlain = (*plain)->generate(eosListEncoding(**plain, prompt), o);
  ASSERT_TRUE(beamPlain.ok()) << beamPlain.error().message;
  const std::vector<int>& free = beamPlain->ids;
  ASSERT_GT(free.size(), prompt.size() + 3);
  const int beamStop = free[prompt.size() + 2];
  auto a = Model::open(eosListFolder("llama", {2, beamStop}, "beamA").string());
  auto b = Model::open(eosListFolder("llama", {beamStop, 2}, "beamB").string());
  ASSERT_TRUE(a.ok() && b.ok());
  auto beamA = (*a)->generate(eosListEncoding(**a, prompt), o);
  auto beamB = (*b)->generate(eosListEncoding(**b, prompt), o);
  ASSERT_TRUE(beamA.ok() && beamB.ok());
  ASSERT_EQ(beamA->ids.size(), beamB->ids.size());
  EXPECT_EQ(std::vector<int>(beamA->ids.begin(), beamA->ids.end() - 1),
            std::vector<int>(beamB->ids.begin(), beamB->ids.end() - 1));
  for (size_t i = prompt.size(); i + 1 < beamA->ids.size(); ++i) EXPECT_NE(beamA->ids[i], beamStop) << i;
  if (beamA->ids.size() < prompt.size() + 12) {
    EXPECT_EQ(beamA->ids.back(), 2);
    EXPECT_EQ(beamB->ids.back(), beamStop);
  }
}

TEST(GenerationEosList, TranslateStopsAtTheListsSecondId) {
  auto plain = Seq2SeqModel::open(modelDir("bart"));
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  const auto cases =
      nlohmann::json::parse(std::ifstream(modelDir("bart") + "/reference_tokens.json"))["cases"];
  auto src = (*plain)->encode(cases[0]["source"].get<std::string>(), "source");
  ASSERT_TRUE(src.ok());
  GenerateOptions o;
  o.beams = 1;
  auto full = (*plain)->generate(*src, o);
  ASSERT_TRUE(full.ok()) << full.error().message;
  // After decoder start and forced <s>: the first written token not written before it.
  size_t at = 3;
  while (at < full->targetIds.size() &&
         std::count(full->targetIds.begin(), full->targetIds.begin() + static_cast<std::ptrdiff_t>(at),
                    full->targetIds[at]) > 0)
    ++at;
  ASSERT_LT(at + 1, full->targetIds.size());
  const int stop = full->targetIds[at];
  const int eos = (*plain)->info().generation.eosTokenId;
  auto listed = Seq2SeqModel::open(eosListFolder("bart", {eos, stop}, "translate").string());
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  auto cut = (*listed)->generate(*src, o);
  ASSERT_TRUE(cut.ok()) << cut.error().message;
  EXPECT_EQ(cut->targetIds, std::vector<int>(full->targetIds.begin(),
                                             full->targetIds.begin() + static_cast<std::ptrdiff_t>(at + 1)));
  EXPECT_NE(cut->settings.find("eos_token_id [" + std::to_string(eos) + ", " + std::to_string(stop) + "]"),
            std::string::npos)
      << cut->settings;
}

// forced_eos_token_id as a list: ForcedEOSTokenLogitsProcessor sets every listed id to 0 and the
// rest to -inf one token before max_length, so greedy search (torch.argmax, first maximum) takes
// the smallest listed id, not the list's first.
TEST(GenerationEosList, ForcedEosListLeavesEveryIdPossible) {
  GenerationSettings g;
  ASSERT_TRUE(readGenerationConfig(R"({"forced_eos_token_id": [9, 7]})", "g.json", 16, g).ok());
  EXPECT_EQ(g.forcedEosText(), "[9, 7]");
  EXPECT_EQ(g.forcedEosSet(), (std::vector<int>{9, 7}));
  std::vector<float> scores(16, 1.0f);
  const std::vector<int> ids{0, 4, 5};  // length 3 = max_length 4 - 1: the forced step
  processScores(scores.data(), 16, ids, g, 4);
  for (int t = 0; t < 16; ++t)
    EXPECT_EQ(scores[static_cast<size_t>(t)],
              t == 7 || t == 9 ? 0.0f : -std::numeric_limits<float>::infinity())
        << t;
  EXPECT_EQ(greedyNextToken(std::vector<float>(16, 1.0f).data(), 16, ids, g, 4), 7);
  EXPECT_EQ(greedyNextToken(std::vector<float>(16, 1.0f).data(), 16, {0, 4}, g, 4), 0);  // not yet forced
  ASSERT_TRUE(readGenerationConfig(R"({"forced_eos_token_id": 3})", "g.json", 16, g).ok());
  EXPECT_EQ(g.forcedEosText(), "3");
  EXPECT_EQ(g.forcedEosSet(), std::vector<int>{3});
  auto bad = readGenerationConfig(R"({"forced_eos_token_id": [3, 16]})", "g.json", 16, g);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "g.json: 'forced_eos_token_id' is 16, expected -1 to 15");
}

TEST(GenerationEosList, TranslateForcesTheSmallestIdOfTheList) {
  auto plain = Seq2SeqModel::open(modelDir("bart"));
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  const auto cases =
      nlohmann::json::parse(std::ifstream(modelDir("bart") + "/reference_tokens.json"))["cases"];
  auto src = (*plain)->encode(cases[0]["source"].get<std::string>(), "source");
  ASSERT_TRUE(src.ok());
  GenerateOptions o;
  o.beams = 1;
  auto full = (*plain)->generate(*src, o);
  ASSERT_TRUE(full.ok()) << full.error().message;
  const int maxLength = (*plain)->info().generation.maxLength;
  ASSERT_EQ(static_cast<int>(full->targetIds.size()), maxLength);  // ran to the budget: the forced step came
  auto listed = Seq2SeqModel::open(eosListFolder("bart", {5, 3}, "forced", "forced_eos_token_id").string());
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  auto forced = (*listed)->generate(*src, o);
  ASSERT_TRUE(forced.ok()) << forced.error().message;
  std::vector<int> want(full->targetIds.begin(), full->targetIds.end() - 1);
  want.push_back(3);
  EXPECT_EQ(forced->targetIds, want);
  EXPECT_NE(forced->settings.find("forced_eos_token_id [5, 3]"), std::string::npos) << forced->settings;
}

}  // namespace
}  // namespace attn::models
