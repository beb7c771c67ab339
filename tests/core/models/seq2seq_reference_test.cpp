// Seq2SeqModel on the small random BART, Marian, T5, Flan-T5 and mBART folders
// tests/scripts/gen_seq2seq_fixtures.py writes, against its plain-PyTorch ports of
// BartForConditionalGeneration, MarianMTModel, T5ForConditionalGeneration,
// MBartForConditionalGeneration and greedy generation (checked there against float64 numpy):
// the tokenizers' ids (BART, Flan-T5, mBART: Hugging Face's
// `tokenizers`; Marian: python3-sentencepiece + vocab.json as MarianTokenizer; T5:
// python3-sentencepiece as T5Tokenizer), every encoder, decoder and cross-attention map, the
// logits and the greedy ids.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "attn/models/seq2seq/beam_search.h"
#include "attn/models/seq2seq/greedy_search.h"
#include "attn/models/seq2seq/seq2seq_model.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

using attn::test::loadNpz;
using attn::test::maxAbsDiff;
using attn::test::modelDir;

nlohmann::json seq2seqCases(const std::string& name) {
  std::ifstream in(modelDir(name) + "/reference_tokens.json");
  return nlohmann::json::parse(in)["cases"];
}

std::vector<int> idsOf(const NpyArray& a) {
  std::vector<int> out;
  for (float v : a.values.data) out.push_back(static_cast<int>(v));
  return out;
}

/// The worst difference over every layer and head of `layers` against want [L, H, rows, cols].
double worstMap(const std::vector<AttentionResult>& layers, const NpyArray& want) {
  const auto& s = want.values.shape;
  EXPECT_EQ(s.size(), 4u);
  EXPECT_EQ(static_cast<int64_t>(layers.size()), s[0]);
  const size_t cells = static_cast<size_t>(s[2] * s[3]);
  double worst = 0;
  for (size_t l = 0; l < layers.size(); ++l)
    for (size_t h = 0; h < layers[l].heads.size(); ++h) {
      const Mat& w = layers[l].heads[h].weights;
      EXPECT_EQ(w.rows(), s[2]);
      EXPECT_EQ(w.cols(), s[3]);
      if (static_cast<size_t>(w.size()) != cells) return 1e9;
      worst = std::max(
          worst, maxAbsDiff(w.data(), want.values.data, (l * static_cast<size_t>(s[1]) + h) * cells, cells));
    }
  return worst;
}

/// The folders, each opened once for the suite.
std::shared_ptr<const Seq2SeqModel> openedSeq2Seq(const std::string& name) {
  static std::map<std::string, std::shared_ptr<const Seq2SeqModel>> opened;
  auto& m = opened[name];
  if (!m) {
    auto r = Seq2SeqModel::open(modelDir(name));
    EXPECT_TRUE(r.ok()) << r.error().message;
    if (r) m = *r;
  }
  return m;
}

class Seq2SeqReference : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    model_ = openedSeq2Seq(GetParam());
    ASSERT_TRUE(model_);
  }
  std::shared_ptr<const Seq2SeqModel> model_;
};

TEST(Seq2SeqInfo, BartAndMarianSettingsFromTheirFolders) {
  const Seq2SeqInfo& i = openedSeq2Seq("bart")->info();
  EXPECT_EQ(i.modelType, "bart");
  EXPECT_EQ(i.encoderLayers, 2);
  EXPECT_EQ(i.decoderLayers, 2);
  EXPECT_EQ(i.decoderHeads, 4);
  EXPECT_EQ(i.dModel, 64);
  EXPECT_EQ(i.generation.decoderStartTokenId, 2);
  EXPECT_EQ(i.generation.forcedBosTokenId, 0);
  EXPECT_EQ(i.generation.forcedEosTokenId, 2);
  EXPECT_EQ(i.generation.maxLength, 12);
  EXPECT_EQ(i.generation.noRepeatNgramSize, 3);
  EXPECT_NE(i.generation.source.find("generation_config.json"), std::string::npos);
  const Seq2SeqInfo& m = openedSeq2Seq("marian")->info();
  EXPECT_EQ(m.modelType, "marian");
  EXPECT_EQ(m.generation.decoderStartTokenId, m.vocabSize - 1);  // <pad>
  EXPECT_EQ(m.generation.eosTokenId, 0);
  EXPECT_EQ(m.generation.forcedBosTokenId, -1);
  EXPECT_EQ(m.generation.badWordsIds, (std::vector<std::vector<int>>{{m.vocabSize - 1}}));
  EXPECT_NE(m.tokenizerKind.find("source.spm"), std::string::npos) << m.tokenizerKind;
}

TEST_P(Seq2SeqReference, ForcedDecodingEveryMapAndTheLogitsMatch) {
  const auto cases = seq2seqCases(GetParam());
  auto ref = loadNpz(modelDir(GetParam()) + "/reference.npz");
  ASSERT_EQ(cases.size(), 2u);
  for (size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    auto src = model_->encode(cases[c]["source"].get<std::string>(), "source");
    ASSERT_TRUE(src.ok()) << src.error().message;
    EXPECT_EQ(src->ids, cases[c]["source_ids"].get<std::vector<int>>());
    EXPECT_EQ(src->tokens, cases[c]["source_tokens"].get<std::vector<std::string>>());
    auto run = model_->forced(*src, cases[c]["target"].get<std::string>(), "target");
    ASSERT_TRUE(run.ok()) << run.error().message;
    const std::string k = std::to_string(c);
    EXPECT_EQ(run->targetIds, idsOf(ref.at("decoder_ids_" + k)));  // the target tokenizer's ids
    EXPECT_EQ(run->targetTokens.front(),
              model_->tokenizer().idToToken(model_->info().generation.decoderStartTokenId));
    EXPECT_LE(worstMap(run->attention.encoder, ref.at("enc_attn_" + k)), 1e-4);
    EXPECT_LE(worstMap(run->attention.decoder, ref.at("dec_attn_" + k)), 1e-4);
    EXPECT_LE(worstMap(run->attention.cross, ref.at("cross_attn_" + k)), 1e-4);
    const auto& logits = ref.at("logits_" + k).values;
    ASSERT_EQ(logits.shape, (std::vector<int64_t>{run->logits.rows(), run->logits.cols()}));
    EXPECT_LE(maxAbsDiff(run->logits.data(), logits.data, 0, logits.data.size()), 1e-3);
    // The engine results carry the tokens and the decoder's causal mask.
    const AttentionResult& cross = run->attention.cross[1];
    EXPECT_EQ(cross.queryTokens, run->targetTokens);
    EXPECT_EQ(cross.keyTokens, src->tokens);
    EXPECT_EQ(cross.nq(), static_cast<int>(run->targetIds.size()));
    EXPECT_EQ(cross.nk(), src->size());
    EXPECT_FALSE(run->attention.decoder[0].mask.isNone());
    EXPECT_TRUE(run->attention.encoder[0].mask.isNone());
  }
}

TEST_P(Seq2SeqReference, GreedyIdsMatchAndTheirMapsEqualForcedDecodingOfThem) {
  const auto cases = seq2seqCases(GetParam());
  auto ref = loadNpz(modelDir(GetParam()) + "/reference.npz");
  for (size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    const std::string k = std::to_string(c);
    auto src = model_->encode(cases[c]["source"].get<std::string>(), "source");
    ASSERT_TRUE(src.ok());
    auto gen = model_->generate(*src, GenerateOptions{});
    ASSERT_TRUE(gen.ok()) << gen.error().message;
    EXPECT_EQ(gen->targetIds, idsOf(ref.at("greedy_" + k)));
    GenerateOptions shortRun;
    shortRun.maxNewTokens = 4;
    auto brief = model_->generate(*src, shortRun);
    ASSERT_TRUE(brief.ok());
    EXPECT_EQ(brief->targetIds, idsOf(ref.at("greedy_short_" + k)));
    EXPECT_NE(gen->settings.find("max_length 12"), std::string::npos) << gen->settings;
    // Kept a row at a time with the key/value cache: the same maps as all rows at once.
    auto forced = model_->forcedIds(*src, gen->targetIds);
    ASSERT_TRUE(forced.ok());
    const auto& info = model_->info();
    for (size_t l = 0; l < static_cast<size_t>(info.decoderLayers); ++l)
      for (size_t h = 0; h < static_cast<size_t>(info.decoderHeads); ++h) {
        EXPECT_TRUE(gen->attention.decoder[l].heads[h].weights.isApprox(
            forced->attention.decoder[l].heads[h].weights, 1e-5f));
        EXPECT_TRUE(gen->attention.cross[l].heads[h].weights.isApprox(
            forced->attention.cross[l].heads[h].weights, 1e-5f));
      }
  }
}

TEST_P(Seq2SeqReference, BeamSearchIdsMatchThePyTorchPort) {
  struct BeamCase {
    int beams;
    double lengthPenalty;
    bool earlyStopping;
  };
  // gen_seq2seq_fixtures.py's BEAM table.
  static const std::map<std::string, BeamCase> kBeams = {{"bart", {4, 2.0, true}},
                                                         {"marian", {4, 1.0, false}},
                                                         {"t5", {3, 1.0, false}},
                                                         {"flan_t5", {4, 0.6, false}},
                                                         {"mbart", {5, 1.0, true}}};
  const BeamCase& b = kBeams.at(GetParam());
  const auto cases = seq2seqCases(GetParam());
  auto ref = loadNpz(modelDir(GetParam()) + "/reference.npz");
  for (size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    auto src = model_->encode(cases[c]["source"].get<std::string>(), "source");
    ASSERT_TRUE(src.ok());
    GenerateOptions o;
    o.beams = b.beams;
    o.lengthPenalty = b.lengthPenalty;
    o.earlyStopping = b.earlyStopping;
    auto gen = model_->generate(*src, o);
    ASSERT_TRUE(gen.ok()) << gen.error().message;
    EXPECT_EQ(gen->targetIds, idsOf(ref.at("beam_" + std::to_string(c))));
    EXPECT_NE(gen->settings.find("beam search (" + std::to_string(b.beams) + " beams"), std::string::npos)
        << gen->settings;
    auto forced = model_->forcedIds(*src, gen->targetIds);
    ASSERT_TRUE(forced.ok());
    EXPECT_TRUE(gen->attention.cross.back().heads[0].weights.isApprox(
        forced->attention.cross.back().heads[0].weights, 1e-5f));
    EXPECT_TRUE(gen->returned.size() == 1 && gen->returned[0].ids == gen->targetIds);
    // num_return_sequences = beams: every kept hypothesis, best first, with its score.
    o.numReturnSequences = b.beams;
    auto all = model_->generate(*src, o);
    ASSERT_TRUE(all.ok()) << all.error().message;
    const NpyArray& ranked = ref.at("beam_ranked_" + std::to_string(c));
    const NpyArray& scores = ref.at("beam_scores_" + std::to_string(c));
    ASSERT_EQ(ranked.values.shape.size(), 2u);
    const auto rows = static_cast<size_t>(ranked.values.shape[0]),
               cols = static_cast<size_t>(ranked.values.shape[1]);
    ASSERT_EQ(all->returned.size(), rows);
    for (size_t r = 0; r < rows; ++r) {
      std::vector<int> want;
      for (size_t j = 0; j < cols && ranked.values.data[r * cols + j] >= 0; ++j)
        want.push_back(static_cast<int>(ranked.values.data[r * cols + j]));
      EXPECT_EQ(all->returned[r].ids, want) << "sequence " << r;
      EXPECT_NEAR(all->returned[r].score, scores.values.data[r], 1e-4) << "sequence " << r;
    }
    EXPECT_EQ(all->returned[0].text, gen->outputText);
    o.numReturnSequences = b.beams + 1;
    auto tooMany = model_->generate(*src, o);
    ASSERT_FALSE(tooMany.ok());
    EXPECT_NE(tooMany.error().message.find("number of beams"), std::string::npos) << tooMany.error().message;
  }
}

TEST(Seq2SeqBeam, HypothesesKeepTheBestAndStopAsTransformersDoes) {
  BeamHypotheses h(2, 1.0, false);
  h.add({0, 5}, -2.0, 2);           // score -1
  h.add({0, 6}, -3.0, 2);           // -1.5, now the worst
  EXPECT_FALSE(h.isDone(-2.5, 2));  // an open beam at -1.25 would beat -1.5
  EXPECT_TRUE(h.isDone(-4.0, 2));   // -2 would not
  h.add({0, 7}, -4.0, 2);           // -2: not better than the worst, left out
  EXPECT_EQ(h.size(), 2u);
  EXPECT_EQ(h.best(), (std::vector<int>{0, 5}));
  h.add({0, 8}, -1.0, 1);  // -1: in, -1.5 out; of the two at -1 the later one is best
  EXPECT_EQ(h.size(), 2u);
  EXPECT_EQ(h.best(), (std::vector<int>{0, 8}));
  EXPECT_TRUE(h.isDone(-2.2, 2));  // the worst is now -1, the best open beam -1.1
  BeamHypotheses early(1, 2.0, true);
  EXPECT_FALSE(early.isDone(0.0, 3));
  early.add({0, 1, 2}, -8.0, 4);      // -8 / 4^2
  EXPECT_TRUE(early.isDone(0.0, 3));  // early_stopping: done as soon as it is full
  EXPECT_EQ(early.best(), (std::vector<int>{0, 1, 2}));
  // Best first; of equal scores the later added first (sorted, then popped from the end).
  const auto ranked = h.ranked();
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].ids, (std::vector<int>{0, 8}));
  EXPECT_EQ(ranked[1].ids, (std::vector<int>{0, 5}));
  EXPECT_DOUBLE_EQ(ranked[0].score, -1.0);
  EXPECT_DOUBLE_EQ(ranked[1].score, -1.0);
  BeamHypotheses three(3, 1.0, false);
  three.add({0, 1}, -3.0, 1), three.add({0, 2}, -1.0, 1), three.add({0, 3}, -2.0, 1);
  const auto byScore = three.ranked();
  ASSERT_EQ(byScore.size(), 3u);
  EXPECT_EQ(byScore[0].ids[1], 2);
  EXPECT_EQ(byScore[1].ids[1], 3);
  EXPECT_EQ(byScore[2].ids[1], 1);
}

INSTANTIATE_TEST_SUITE_P(Folders, Seq2SeqReference,
                         ::testing::Values("bart", "marian", "t5", "flan_t5", "mbart"));

// The source's offsets as the library reports them (npm tokenizers' getOffsets(): code points of
// the text, [0, 0] for the special tokens the post-processor adds), on the reference sources and
// on texts with accents, curly quotes, CJK and an emoji: byte-level BPE (BART, its spaces
// trimmed), SentencePiece Unigram behind Metaspace (Flan-T5: "▁" and "G" share the first
// character) and mBART's language code.
TEST(Seq2SeqTokenizer, SourceOffsetsAsTheLibrarysOwn) {
  for (const char* name : {"bart", "flan_t5", "mbart"}) {
    SCOPED_TRACE(name);
    auto m = openedSeq2Seq(name);
    ASSERT_TRUE(m);
    std::ifstream in(modelDir(name) + "/reference_tokens.json");
    const auto doc = nlohmann::json::parse(in);
    std::vector<std::tuple<std::string, std::vector<int>, std::vector<std::vector<int>>>> texts;
    for (const auto& c : doc["cases"]) texts.emplace_back(c["source"], c["source_ids"], c["source_offsets"]);
    for (const auto& c : doc["offset_cases"]) texts.emplace_back(c["text"], c["ids"], c["offsets"]);
    ASSERT_EQ(texts.size(), 4u);
    for (const auto& [text, ids, want] : texts) {
      SCOPED_TRACE(text);
      auto enc = m->encode(text, "src");
      ASSERT_TRUE(enc.ok()) << enc.error().message;
      EXPECT_EQ(enc->ids, ids);
      std::vector<std::vector<int>> got;
      for (const auto& [b, e] : toCodePointOffsets(text, enc->offsets)) got.push_back({b, e});
      EXPECT_EQ(got, want);
    }
  }
}

// The other direction: ro_RO as the source's code and en_XX forced first give the reference's
// greedy output for that source; a code the tokenizer lacks, or languages for a BART, are refused.
TEST(Seq2SeqMbart, SourceAndTargetLanguagesAsTheReference) {
  auto m = openedSeq2Seq("mbart");
  ASSERT_TRUE(m);
  const auto cases = seq2seqCases("mbart");
  auto ref = loadNpz(modelDir("mbart") + "/reference.npz");
  for (size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    auto src = m->encode(cases[c]["source"].get<std::string>(), "source");
    ASSERT_TRUE(src.ok());
    GenerateOptions o;
    o.beams = 1;
    o.sourceLanguage = "ro_RO";
    o.targetLanguage = "en_XX";
    auto gen = m->generate(*src, o);
    ASSERT_TRUE(gen.ok()) << gen.error().message;
    EXPECT_EQ(gen->source.ids, idsOf(ref.at("source_ro_" + std::to_string(c))));
    EXPECT_EQ(gen->targetIds, idsOf(ref.at("greedy_en_" + std::to_string(c))));
    EXPECT_NE(gen->targetIds, idsOf(ref.at("greedy_" + std::to_string(c))));  // the option changes the output
    EXPECT_EQ(gen->source.tokens.front(), "ro_RO");
  }
  auto src = m->encode("Salut", "source");
  ASSERT_TRUE(src.ok());
  GenerateOptions bad;
  bad.targetLanguage = "fr_XX";
  auto r = m->generate(*src, bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(
      r.error().message.find("\"fr_XX\" is not a language code of this tokenizer (it has en_XX, ro_RO)"),
      std::string::npos)
      << r.error().message;
  auto bart = openedSeq2Seq("bart");
  ASSERT_TRUE(bart);
  auto bsrc = bart->encode("Hello", "source");
  ASSERT_TRUE(bsrc.ok());
  GenerateOptions lang;
  lang.sourceLanguage = "en_XX";
  r = bart->generate(*bsrc, lang);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("mBART's language codes"), std::string::npos) << r.error().message;
}

TEST(Seq2SeqMbart, LanguageCodesAsTheTokenizerAndGenerateWriteThem) {
  auto m = openedSeq2Seq("mbart");
  ASSERT_TRUE(m);
  const HfTokenizer& tok = m->tokenizer();
  auto idOf = [&tok](const std::string& piece) {
    for (int id = 0; id < tok.idLimit(); ++id)
      if (tok.idToToken(id) == piece) return id;
    return -1;
  };
  const int en = idOf("en_XX"), ro = idOf("ro_RO");
  ASSERT_GE(en, 0);
  EXPECT_EQ(m->info().generation.forcedBosTokenId, ro);
  EXPECT_EQ(m->info().generation.decoderStartTokenId, 2);
  auto src = m->encode("Salut, lume!", "source");
  ASSERT_TRUE(src.ok());
  EXPECT_EQ(src->ids.front(), en);  // MBart50Tokenizer: the source language first, </s> last
  EXPECT_EQ(src->ids.back(), 2);
  auto forced = m->forced(*src, "Salut", "target");
  ASSERT_TRUE(forced.ok()) << forced.error().message;
  EXPECT_EQ(forced->targetIds[0], 2);
  EXPECT_EQ(forced->targetIds[1], ro);
  EXPECT_EQ(forced->targetIds.back(), 2);
  auto gen = m->generate(*src, GenerateOptions{});
  ASSERT_TRUE(gen.ok());
  EXPECT_EQ(gen->targetIds[1], ro);  // forced_bos_token_id
  EXPECT_EQ(gen->outputText.find("ro_RO"), std::string::npos) << gen->outputText;
}

TEST(Seq2SeqGreedy, NoRepeatNgramBansTheTokenThatWouldRepeatATrigram) {
  EXPECT_EQ(bannedNgramTokens({5, 6, 7, 5, 6}, 3), std::vector<int>{7});
  EXPECT_TRUE(bannedNgramTokens({5, 6, 7, 5, 8}, 3).empty());
  EXPECT_TRUE(bannedNgramTokens({5, 6}, 3).empty());
  EXPECT_EQ(bannedNgramTokens({4, 4}, 2), std::vector<int>{4});
  GenerationSettings g;
  g.noRepeatNgramSize = 2;
  const float logits[3] = {0.f, 3.f, 2.f};
  EXPECT_EQ(greedyNextToken(logits, 3, {9, 1, 9}, g, 10), 2);  // bigram (9,1) seen: 1 banned
  EXPECT_EQ(greedyNextToken(logits, 3, {1, 9, 1}, g, 10), 1);  // bigram (1,9) seen: 9 banned, not 1
  EXPECT_EQ(greedyNextToken(logits, 3, {9, 1, 0, 1}, g, 10), 1);
  EXPECT_EQ(greedyNextToken(logits, 3, {1, 1}, g, 10), 2);  // (1,1) seen: 1 banned
  g.forcedEosTokenId = 0;
  EXPECT_EQ(greedyNextToken(logits, 3, {9, 1}, g, 3), 0);  // one token left: eos
  g.forcedBosTokenId = 2;
  EXPECT_EQ(greedyNextToken(logits, 3, {9}, g, 10), 2);
  GenerationSettings bad;
  bad.badWordsIds = {{1}, {0, 2}};
  EXPECT_EQ(greedyNextToken(logits, 3, {9, 5}, bad, 10), 2);  // 1 always banned
  EXPECT_EQ(greedyNextToken(logits, 3, {9, 0}, bad, 10), 0);  // after 0: 2 banned too
}

}  // namespace
}  // namespace attn::models
