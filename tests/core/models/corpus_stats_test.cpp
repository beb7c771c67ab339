// Corpus statistics (core/attn/models/experiments/corpus_stats.h) against per-sentence
// analyzeHeads runs, what `metrics --model` prints for each sentence: the corpus
// mean is their plain mean; shards merge to one run; a state written to JSON
// and read back continues as if never interrupted.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "attn/analysis/head_analysis.h"
#include "attn/models/experiments/corpus_stats.h"
#include "attn/models/model.h"

namespace attn::models {
namespace {

using M = CorpusMeasure;

std::string corpusFixture(const std::string& name) {
  return std::string(ATTN_FIXTURE_DIR) + "/models/" + name;
}

// 50 lines from a fixed word list (a small LCG: no library RNG whose sequence may change).
std::vector<std::string> corpusLines() {
  static const char* const kWords[] = {"the", "cat", "sat", "on", "a", "mat", ",", "and", "dog",
                                       "ran", "far", "away", ".", "hello", "world", "!", "is", "it"};
  std::vector<std::string> lines;
  uint64_t x = 12345;
  auto next = [&x](uint64_t n) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (x >> 33) % n;
  };
  for (int i = 0; i < 50; ++i) {
    std::string s;
    const auto n = 1 + next(14);
    for (uint64_t k = 0; k < n; ++k) s += (s.empty() ? "" : " ") + std::string(kWords[next(std::size(kWords))]);
    lines.push_back(s);
  }
  return lines;
}

RunOptions lean() {
  RunOptions ro;
  ro.keepQkv = false;
  ro.topK = 0;
  return ro;
}

struct CorpusReference {
  std::vector<std::vector<HeadAnalysis>> perSentence;  // [sentence][layer * heads + head]
  int layers = 0, heads = 0;
};

// Independent: the full analyzeHeads of each sentence's weights, as `metrics --model` runs it.
CorpusReference referenceRuns(const Model& model, const std::vector<std::string>& lines) {
  CorpusReference r;
  r.layers = model.info().layers;
  r.heads = model.info().heads;
  AnalysisOptions opt;
  opt.headSimilarity = false;
  for (const auto& line : lines) {
    auto enc = model.encode(line, std::nullopt, "test");
    EXPECT_TRUE(enc.ok());
    auto run = model.run(*enc);  // default options: q/k/v and predictions kept, weights the same
    EXPECT_TRUE(run.ok());
    std::vector<HeadAnalysis> heads;
    for (const auto& layer : run->layers) {
      std::vector<Mat> w;
      for (const auto& h : layer.heads) w.push_back(h.weights);
      auto an = analyzeHeads(w, run->encoding.tokens, {}, opt);
      for (auto& h : an.heads) heads.push_back(std::move(h));
    }
    r.perSentence.push_back(std::move(heads));
  }
  return r;
}

double measureOf(const HeadAnalysis& a, M m) {
  switch (m) {
    case M::Entropy: return a.entropyMean;
    case M::First: return a.shares.first;
    case M::Separator: return a.shares.separator;
    case M::Previous: return a.shares.previous;
    case M::Next: return a.shares.next;
    case M::Self: return a.shares.diagonal;
    case M::Distance: return a.meanDistance;
    case M::CoverageK: return a.coverageK;
  }
  return 0;
}

CorpusStats accumulate(const Model& model, const std::vector<std::string>& lines, CorpusConfig config,
                       int shardIndex = 0, int shardCount = 1, CorpusStats* resumeFrom = nullptr, size_t from = 0) {
  CorpusStats s = resumeFrom ? *resumeFrom : CorpusStats(config);
  for (size_t i = from; i < lines.size(); ++i) {
    if (static_cast<int>(i % static_cast<size_t>(shardCount)) != shardIndex) continue;
    auto enc = model.encode(lines[i], std::nullopt, "test");
    EXPECT_TRUE(enc.ok());
    auto run = model.run(*enc, lean());
    EXPECT_TRUE(run.ok());
    EXPECT_TRUE(s.add(measureSentence(*run, config.coverageLevel), static_cast<int64_t>(i) + 1, 0, lines[i]).ok());
    ++s.counts().lines;
  }
  return s;
}

CorpusConfig configFor(const Model& model, M measure = M::Entropy) {
  return CorpusConfig{model.info().name, model.info().layers, model.info().heads, measure, 4, 64, 0.9};
}

void expectSame(const CorpusStats& a, const CorpusStats& b, double tol) {
  EXPECT_EQ(a.counts().lines, b.counts().lines);
  EXPECT_EQ(a.counts().sentences, b.counts().sentences);
  EXPECT_EQ(a.counts().tokens, b.counts().tokens);
  for (int l = 0; l < a.config().layers; ++l)
    for (int h = 0; h < a.config().heads; ++h) {
      for (int m = 0; m < kCorpusMeasureCount; ++m)
        EXPECT_NEAR(a.mean(l, h, static_cast<M>(m)), b.mean(l, h, static_cast<M>(m)), tol)
            << "layer " << l << " head " << h << " " << corpusMeasureName(static_cast<M>(m));
      const auto &ta = a.top(l, h), &tb = b.top(l, h);
      ASSERT_EQ(ta.size(), tb.size());
      for (size_t k = 0; k < ta.size(); ++k) {
        EXPECT_EQ(ta[k].value, tb[k].value);
        EXPECT_EQ(ta[k].line, tb[k].line);
        EXPECT_EQ(ta[k].text, tb[k].text);
      }
    }
}

class CorpusStatsModel : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusStatsModel, MeansEqualTheMeanOfPerSentenceAnalyses) {
  auto model = Model::open(corpusFixture(GetParam()));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const auto lines = corpusLines();
  const auto ref = referenceRuns(**model, lines);
  for (M ranked : {M::Entropy, M::First}) {
    const auto stats = accumulate(**model, lines, configFor(**model, ranked));
    ASSERT_EQ(stats.counts().sentences, 50);
    ASSERT_EQ(stats.counts().lines, 50);
    for (int l = 0; l < ref.layers; ++l)
      for (int h = 0; h < ref.heads; ++h) {
        const size_t head = static_cast<size_t>(l * ref.heads + h);
        for (int m = 0; m < kCorpusMeasureCount; ++m) {
          double sum = 0;
          for (const auto& s : ref.perSentence) sum += measureOf(s[head], static_cast<M>(m));
          EXPECT_NEAR(stats.mean(l, h, static_cast<M>(m)), sum / 50.0, 1e-12)
              << GetParam() << " layer " << l << " head " << h << " " << corpusMeasureName(static_cast<M>(m));
        }
        // Top 4 by the ranked measure: the sentences with the highest per-sentence values.
        std::vector<std::pair<double, int>> all;
        for (size_t i = 0; i < ref.perSentence.size(); ++i)
          all.emplace_back(measureOf(ref.perSentence[i][head], ranked), static_cast<int>(i) + 1);
        std::stable_sort(all.begin(), all.end(), [](auto& a, auto& b) { return a.first > b.first; });
        const auto& top = stats.top(l, h);
        ASSERT_EQ(top.size(), 4u);
        for (size_t k = 0; k < 4; ++k) {
          EXPECT_NEAR(top[k].value, all[k].first, 1e-12);
          EXPECT_EQ(top[k].text, lines[static_cast<size_t>(top[k].line - 1)]);
        }
        // Ties may order differently only among equal values.
        EXPECT_EQ(top[0].value, all[0].first);
      }
  }
  // The measures are not degenerate: GPT-2 is causal (no next-token share), BERT is not.
  const auto stats = accumulate(**model, lines, configFor(**model));
  const bool causal = (*model)->info().causal;
  EXPECT_EQ(stats.mean(0, 0, M::Next) == 0.0, causal);
  EXPECT_GT(stats.mean(0, 0, M::Entropy), 0.0);
  EXPECT_GT(stats.mean(0, 0, M::Separator), 0.0);  // "," "." "!" and [SEP]/<|endoftext|> keys
}

TEST_P(CorpusStatsModel, ThreeShardsMergedEqualOneRun) {
  auto model = Model::open(corpusFixture(GetParam()));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const auto lines = corpusLines();
  const auto config = configFor(**model);
  const auto one = accumulate(**model, lines, config);
  CorpusStats merged = accumulate(**model, lines, config, 0, 3);
  for (int i = 1; i < 3; ++i) ASSERT_TRUE(merged.merge(accumulate(**model, lines, config, i, 3)).ok());
  EXPECT_EQ(merged.counts().sentences, one.counts().sentences);
  expectSame(merged, one, 1e-12);
  // Merging through JSON lines (what corpus-merge reads) changes nothing.
  auto back = CorpusStats::fromJsonLine(merged.toJsonLine(), "merged");
  ASSERT_TRUE(back.ok()) << back.error().message;
  expectSame(*back, merged, 0.0);
  for (int l = 0; l < config.layers; ++l)
    for (int h = 0; h < config.heads; ++h)
      for (int m = 0; m < kCorpusMeasureCount; ++m)
        EXPECT_EQ(back->sum(l, h, static_cast<M>(m)), merged.sum(l, h, static_cast<M>(m)));
}

TEST_P(CorpusStatsModel, ResumeFromASavedStateEqualsAnUninterruptedRun) {
  auto model = Model::open(corpusFixture(GetParam()));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const auto lines = corpusLines();
  const auto config = configFor(**model);
  const auto whole = accumulate(**model, lines, config);
  std::vector<std::string> first(lines.begin(), lines.begin() + 23);
  const std::string saved = accumulate(**model, first, config).toJsonLine();
  auto state = CorpusStats::fromJsonLine(saved, "checkpoint");
  ASSERT_TRUE(state.ok()) << state.error().message;
  const auto resumed = accumulate(**model, lines, config, 0, 1, &*state, 23);
  expectSame(resumed, whole, 0.0);  // the same sums in the same order: bit for bit
}

TEST_P(CorpusStatsModel, BatchedMeasuresEqualOneSentenceAtATime) {
  auto model = Model::open(corpusFixture(GetParam()));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const auto lines = corpusLines();
  std::vector<Encoding> encodings;
  for (size_t i = 0; i < 9; ++i) encodings.push_back(*(*model)->encode(lines[i], std::nullopt, "test"));
  Encoding tooLong = encodings[0];
  while (tooLong.size() <= (*model)->info().maxPositions) {
    tooLong.ids.push_back(tooLong.ids[1]);
    tooLong.tokens.push_back(tooLong.tokens[1]);
    tooLong.typeIds.push_back(0);
    tooLong.special.push_back(0);
  }
  encodings.insert(encodings.begin() + 4, tooLong);
  const auto batch = measureSentences(**model, encodings);
  ASSERT_EQ(batch.size(), encodings.size());
  EXPECT_NE(batch[4].error, "");
  for (size_t i = 0; i < encodings.size(); ++i) {
    if (i == 4) continue;
    ASSERT_EQ(batch[i].error, "");
    const auto one = measureSentence(*(*model)->run(encodings[i], lean()));
    ASSERT_EQ(batch[i].measures.values.size(), one.values.size());
    EXPECT_EQ(batch[i].measures.tokens, one.tokens);
    for (size_t h = 0; h < one.values.size(); ++h)
      for (size_t m = 0; m < one.values[h].size(); ++m)  // one thread vs two per GEMM: rounding only
        EXPECT_NEAR(batch[i].measures.values[h][m], one.values[h][m], 1e-5);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CorpusStatsModel, ::testing::Values("gpt2", "bert"));

TEST(CorpusStats, MergeRefusesOtherRuns) {
  CorpusConfig a{"m", 2, 4, M::Entropy, 5, 64, 0.9};
  CorpusConfig b = a;
  b.measure = M::First;
  CorpusStats sa(a);
  auto st = sa.merge(CorpusStats(b));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("measure entropy vs first"), std::string::npos) << st.error().message;
  b = a;
  b.heads = 3;
  EXPECT_FALSE(sa.merge(CorpusStats(b)).ok());
  SentenceMeasures wrong{1, 4, 3, std::vector<HeadMeasures>(4)};
  EXPECT_FALSE(sa.add(wrong, 1, 0, "x").ok());
}

TEST(CorpusStats, TopKeepsTheHighestWithTiesByLine) {
  CorpusStats s(CorpusConfig{"m", 1, 1, M::First, 2, 64, 0.9});
  auto sentence = [](double first) {
    SentenceMeasures m{1, 1, 3, std::vector<HeadMeasures>(1)};
    m.values[0][static_cast<size_t>(M::First)] = first;
    return m;
  };
  for (auto [v, line] : {std::pair{0.2, 1}, {0.5, 2}, {0.1, 3}, {0.5, 4}, {0.7, 5}})
    ASSERT_TRUE(s.add(sentence(v), line, 0, std::to_string(line)).ok());
  ASSERT_EQ(s.top(0, 0).size(), 2u);
  EXPECT_EQ(s.top(0, 0)[0].line, 5);
  EXPECT_EQ(s.top(0, 0)[1].line, 2);  // 0.5 at line 2 ranks before 0.5 at line 4
  EXPECT_DOUBLE_EQ(s.mean(0, 0, M::First), (0.2 + 0.5 + 0.1 + 0.5 + 0.7) / 5);
  EXPECT_EQ(s.counts().sentences, 5);
  EXPECT_EQ(s.counts().tokens, 15);
}

TEST(CorpusStats, FromJsonLineNamesTheFileOnBadInput) {
  for (std::string bad : {"", "{", "[]", R"({"model":"m"})",
                          R"({"model":"m","layers":1,"heads":1,"measure":"nope","top":1,"max_tokens":4,"coverage_level":0.9})",
                          R"({"model":"m","layers":1,"heads":1,"measure":"first","top":1,"max_tokens":4,"coverage_level":0.9,)"
                          R"("counts":{"lines":1,"sentences":1,"tokens":1,"split_lines":0,"skipped_lines":0},"sums":[[1,2]],"top_sentences":[[]]})"}) {
    auto r = CorpusStats::fromJsonLine(bad, "shard.jsonl");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().message.rfind("shard.jsonl: ", 0), 0u) << r.error().message;
  }
}

// Integers out of range or written as floats are refused, never cast (a float
// past int's range is undefined behaviour in a plain conversion).
TEST(CorpusStats, FromJsonLineRefusesIntegersOutOfRange) {
  const std::string tail = R"(,"heads":1,"measure":"first","top":1,"max_tokens":4,"coverage_level":0.9})";
  for (std::string layers : {"-92233720368547758091", "1e20", "2.5", "4294967297", "18446744073709551615"}) {
    auto r = CorpusStats::fromJsonLine(R"({"model":"m","layers":)" + layers + tail, "state.jsonl");
    ASSERT_FALSE(r.ok()) << layers;
    EXPECT_EQ(
        r.error().message.rfind("state.jsonl: not a corpus statistics line: 'layers' must be an integer", 0),
        0u)
        << r.error().message;
  }
}

TEST(CorpusStats, SplitEncodingKeepsSpecialTokensAroundEachChunk) {
  auto model = Model::open(corpusFixture("bert"));
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto enc = (*model)->encode("the cat sat on a mat and the dog ran far away", std::nullopt, "test");
  ASSERT_TRUE(enc.ok());
  const int n = enc->size();
  ASSERT_GT(n, 8);
  auto chunks = splitEncoding(*enc, 6);
  ASSERT_TRUE(chunks.ok()) << chunks.error().message;
  std::vector<int> inner;
  for (const auto& c : *chunks) {
    EXPECT_LE(c.size(), 6);
    EXPECT_EQ(c.tokens.front(), "[CLS]");
    EXPECT_EQ(c.tokens.back(), "[SEP]");
    EXPECT_EQ(c.typeIds.size(), c.ids.size());
    inner.insert(inner.end(), c.ids.begin() + 1, c.ids.end() - 1);
    EXPECT_TRUE((*model)->run(c, lean()).ok());
  }
  EXPECT_EQ(chunks->size(), static_cast<size_t>((n - 2 + 3) / 4));
  EXPECT_EQ(inner, std::vector<int>(enc->ids.begin() + 1, enc->ids.end() - 1));
  EXPECT_EQ(splitEncoding(*enc, n)->size(), 1u);
  auto tooSmall = splitEncoding(*enc, 2);
  ASSERT_FALSE(tooSmall.ok());
  EXPECT_NE(tooSmall.error().message.find("no room"), std::string::npos);
}

}  // namespace
}  // namespace attn::models
