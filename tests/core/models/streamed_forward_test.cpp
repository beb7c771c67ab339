// The streamed forward (RunOptions::streamed) against the materialized one on
// the model fixtures: every head's measures equal analyzeHeads over the
// forward's own maps, the logits agree, and any map recomputed from the kept
// q/k equals the forward's map cell for cell; pooled overviews equal a direct
// pooling and a hand-computed case.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attn/analysis/layers.h"
#include "attn/models/model.h"
#include "attn/models/streamed/head_maps.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

using attn::test::modelDir;

/// The fixture's reference texts (with their padding), encoded by the model.
std::vector<Encoding> fixtureEncodings(const Model& m, const std::string& name) {
  std::ifstream f(modelDir(name) + "/reference_tokens.json");
  std::stringstream ss;
  ss << f.rdbuf();
  const auto cases = nlohmann::json::parse(ss.str())["cases"];
  std::vector<Encoding> out;
  for (const auto& tc : cases) {
    std::optional<std::string> pair;
    if (tc["pair"].is_string()) pair = tc["pair"].get<std::string>();
    auto enc = m.encode(tc["text"].get<std::string>(), pair, "text", tc["pad_to"].get<int>());
    EXPECT_TRUE(enc.ok()) << enc.error().message;
    if (enc) out.push_back(std::move(*enc));
  }
  return out;
}

/// |a - b| within tol, relative above 1 (distances and coverage k are counts of tokens).
void expectNear(double a, double b, double tol, const std::string& what) {
  EXPECT_LE(std::abs(a - b), tol * std::max(1.0, std::abs(b)))
      << what << ": streamed " << a << ", materialized " << b;
}

void expectSameMeasures(const Analysis& s, const Analysis& m, const std::string& where) {
  ASSERT_EQ(s.heads.size(), m.heads.size()) << where;
  constexpr double kTol = 1e-6;
  // One row's entropy is a float sum of -p log p over weights whose logits the two paths round
  // differently in the last bit (the tiled kernel scales q before the product, the materialized
  // path scales the product): |dH| = |sum (log p + 1) dp| reaches 2e-6 (the baseline engine copy,
  // without FMA, 1.5e-6 on a row's minimum) where the per-head means, averaged over rows, stay
  // within 1e-6. The minimum and maximum are single rows' entropies.
  constexpr double kRowTol = 3e-6;
  for (size_t h = 0; h < m.heads.size(); ++h) {
    const HeadAnalysis &a = s.heads[h], &b = m.heads[h];
    const std::string at = fmt::format("{} head {}", where, h);
    expectNear(a.entropyMean, b.entropyMean, kTol, at + " entropy");
    expectNear(a.entropyMin, b.entropyMin, kRowTol, at + " entropy min");
    expectNear(a.entropyMax, b.entropyMax, kRowTol, at + " entropy max");
    expectNear(a.normalizedEntropyMean, b.normalizedEntropyMean, kTol, at + " normalized entropy");
    expectNear(a.confidence, b.confidence, kTol, at + " max weight");
    expectNear(a.maxMinGap, b.maxMinGap, kTol, at + " max-min gap");
    expectNear(a.meanDistance, b.meanDistance, kTol, at + " distance");
    expectNear(a.coverageK, b.coverageK, kTol, at + " coverage k");
    expectNear(a.coverageFraction, b.coverageFraction, kTol, at + " coverage fraction");
    expectNear(a.shares.first, b.shares.first, kTol, at + " first-token share");
    expectNear(a.shares.previous, b.shares.previous, kTol, at + " previous share");
    expectNear(a.shares.diagonal, b.shares.diagonal, kTol, at + " self share");
    expectNear(a.shares.separator, b.shares.separator, kTol, at + " separator share");
    ASSERT_EQ(a.perRow.entropy.size(), b.perRow.entropy.size()) << at;
    for (Eigen::Index i = 0; i < b.perRow.entropy.size(); ++i)
      expectNear(a.perRow.entropy(i), b.perRow.entropy(i), kRowTol, fmt::format("{} row {} entropy", at, i));
  }
  ASSERT_EQ(s.headDivergence.rows(), m.headDivergence.rows()) << where;
  EXPECT_LE((s.headDivergence - m.headDivergence).cwiseAbs().maxCoeff(), 1e-6) << where << " head divergence";
}

class StreamedForward : public ::testing::TestWithParam<std::string> {};

TEST_P(StreamedForward, MeasuresLogitsAndRecomputedMapsEqualTheMaterializedForward) {
  const std::string name = GetParam();
  auto model = Model::open(modelDir(name));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const Model& m = **model;
  for (const Encoding& enc : fixtureEncodings(m, name)) {
    SCOPED_TRACE(fmt::format("{}: {} tokens", name, enc.size()));
    RunOptions full;
    full.keepQkv = false;
    full.keepFullLogits = true;
    auto want = m.run(enc, full);
    ASSERT_TRUE(want.ok()) << want.error().message;
    RunOptions so = full;
    so.streamed = true;
    so.qkPrecision = QkPrecision::F32;  // maps recomputed from exactly the forward's q/k
    auto got = m.run(enc, so);
    ASSERT_TRUE(got.ok()) << got.error().message;
    EXPECT_TRUE(got->layers.empty());
    ASSERT_EQ(got->streamedLayers.size(), want->layers.size());
    ASSERT_TRUE(got->qk);
    // The tiled kernel sums the outputs in another order than the N x N product: float rounding.
    ASSERT_GT(want->logits.size(), 0);
    ASSERT_EQ(got->logits.rows(), want->logits.rows());
    EXPECT_LE((got->logits - want->logits).cwiseAbs().maxCoeff(), 2e-4) << "logits";
    EXPECT_LE((got->finalHidden - want->finalHidden).cwiseAbs().maxCoeff(), 2e-4) << "final hidden state";
    // keepAttention false: the forward's output alone from the tiled kernel (online softmax; with
    // measures the output is P V of the measured rows: float rounding apart), no measures, no q/k.
    RunOptions bare = so;
    bare.keepAttention = false;
    bare.keepStreamedQk = false;
    auto alone = m.run(enc, bare);
    ASSERT_TRUE(alone.ok()) << alone.error().message;
    EXPECT_TRUE(alone->streamedLayers.empty());
    EXPECT_FALSE(alone->qk);
    ASSERT_EQ(alone->logits.rows(), want->logits.rows());
    EXPECT_LE((alone->logits - want->logits).cwiseAbs().maxCoeff(), 2e-4) << "logits, output alone";
    // Measures without the q/k store (`metrics --model`: the projections' matrices are freed
    // as soon as the heads are copied) and with the rollout stepped from each layer's head sums
    // (its rows then go a block of all heads at a time): the same measures and logits, and the
    // rollout of the materialized maps.
    RunOptions measuresOnly = so;
    measuresOnly.keepStreamedQk = false;
    measuresOnly.streamedRollout = true;
    auto measured = m.run(enc, measuresOnly);
    ASSERT_TRUE(measured.ok()) << measured.error().message;
    EXPECT_FALSE(measured->qk);
    EXPECT_EQ(measured->logits, got->logits);
    EXPECT_EQ(got->streamedRollout.size(), 0) << "a rollout nobody asked for";
    LayeredWeights allMaps;
    for (const auto& layer : want->layers) {
      allMaps.emplace_back();
      for (const auto& h : layer.heads) allMaps.back().push_back(h.weights);
    }
    const auto rollout = attentionRollout(allMaps);
    ASSERT_TRUE(rollout.ok()) << rollout.error().message;
    ASSERT_EQ(measured->streamedRollout.rows(), enc.size());
    EXPECT_LE((measured->streamedRollout - rollout->back()).cwiseAbs().maxCoeff(), 1e-5) << "rollout";
    ASSERT_EQ(measured->streamedLayers.size(), got->streamedLayers.size());
    for (size_t l = 0; l < got->streamedLayers.size(); ++l)
      expectSameMeasures(measured->streamedLayers[l], got->streamedLayers[l],
                         fmt::format("no store, layer {}", l));
    for (size_t l = 0; l < want->layers.size(); ++l) {
      std::vector<Mat> maps;
      for (const auto& h : want->layers[l].heads) maps.push_back(h.weights);
      const Analysis ref = analyzeHeads(maps, enc.tokens, {}, so.streamedAnalysis);
      expectSameMeasures(got->streamedLayers[l], ref, fmt::format("layer {}", l));
      for (size_t h = 0; h < maps.size(); ++h) {
        auto map = headMap(*got->qk, static_cast<int>(l), static_cast<int>(h), fullMap(*got->qk));
        ASSERT_TRUE(map.ok()) << map.error().message;
        // The recomputation and the forward's N x N product round their dot products and exp
        // differently on each engine copy (1.2e-6 measured on avx2): a few ulps of 1.
        EXPECT_LE((*map - maps[h]).cwiseAbs().maxCoeff(), 4e-6) << "layer " << l << " head " << h;
      }
    }
  }
}

// Chunked prefill: the MLP on blocks of 5 rows gives the logits of the one-piece MLP (the
// row blocks change only how the GEMM blocks its sums: float rounding).
TEST_P(StreamedForward, ChunkedPrefillGivesTheLogitsOfTheWholeSequence) {
  const std::string name = GetParam();
  auto model = Model::open(modelDir(name));
  ASSERT_TRUE(model.ok()) << model.error().message;
  for (const Encoding& enc : fixtureEncodings(**model, name)) {
    RunOptions whole;
    whole.keepFullLogits = true;
    whole.prefillRows = 0;
    RunOptions chunked = whole;
    chunked.prefillRows = 5;
    ASSERT_GT(enc.size(), 5);
    auto a = (*model)->run(enc, whole);
    auto b = (*model)->run(enc, chunked);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_GT(a->logits.size(), 0);
    ASSERT_EQ(a->logits.rows(), b->logits.rows());
    EXPECT_LE((a->logits - b->logits).cwiseAbs().maxCoeff(), 1e-4) << name << " " << enc.size() << " tokens";
    EXPECT_LE((a->finalHidden - b->finalHidden).cwiseAbs().maxCoeff(), 1e-4);
    EXPECT_GT(a->logits.cwiseAbs().maxCoeff(), 1e-3);  // the comparison compares something
  }
}

/// The k most probable tokens of one logits row: a double softmax and a sort, independent
/// of the model's softmaxTopK.
std::vector<TopToken> referenceTop(const Mat& logits, Eigen::Index row, int k) {
  const Eigen::Index V = logits.cols();
  const double mx = logits.row(row).maxCoeff();
  double sum = 0;
  for (Eigen::Index j = 0; j < V; ++j) sum += std::exp(static_cast<double>(logits(row, j)) - mx);
  std::vector<TopToken> all(static_cast<size_t>(V));
  for (Eigen::Index j = 0; j < V; ++j)
    all[static_cast<size_t>(j)] = {
        static_cast<int>(j), "",
        static_cast<float>(std::exp(static_cast<double>(logits(row, j)) - mx) / sum)};
  std::stable_sort(all.begin(), all.end(),
                   [](const TopToken& a, const TopToken& b) { return a.prob > b.prob; });
  all.resize(static_cast<size_t>(k));
  return all;
}

/// Same probabilities rank by rank within tol; the same ids wherever the neighbouring ranks
/// are further apart than the rounding could reorder (`want` holds one rank more than `got`,
/// so that the last rank's gap to the next is known).
void expectSameTop(const std::vector<TopToken>& got, const std::vector<TopToken>& want, double tol,
                   const std::string& where) {
  ASSERT_EQ(got.size() + 1, want.size()) << where;
  for (size_t r = 0; r < got.size(); ++r) {
    EXPECT_NEAR(got[r].prob, want[r].prob, tol) << where << " rank " << r;
    const bool tiedAbove = r > 0 && want[r - 1].prob - want[r].prob < 10 * tol;
    const bool tiedBelow = r + 1 < want.size() && want[r].prob - want[r + 1].prob < 10 * tol;
    if (!tiedAbove && !tiedBelow) {
      EXPECT_EQ(got[r].id, want[r].id) << where << " rank " << r;
    }
  }
}

// Next-token predictions: the LM head in row blocks (5 rows here) gives the top-5 of the
// full [N, vocab] logits at every position; a run asked for the last position only leaves
// the others empty, and Model::nextTokensAt gives any of them from the run's final state.
TEST_P(StreamedForward, NextTokensInRowBlocksAndOnDemandEqualTheFullLogits) {
  const std::string name = GetParam();
  auto model = Model::open(modelDir(name));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const Model& m = **model;
  const auto encodings = fixtureEncodings(m, name);
  ASSERT_FALSE(encodings.empty());
  if (!m.info().causal) {
    auto run = m.run(encodings.front());
    ASSERT_TRUE(run.ok()) << run.error().message;
    auto top = m.nextTokensAt(*run, 0);
    ASSERT_FALSE(top.ok());
    EXPECT_NE(top.error().message.find("bidirectional"), std::string::npos) << top.error().message;
    return;
  }
  for (const Encoding& enc : encodings) {
    SCOPED_TRACE(fmt::format("{}: {} tokens", name, enc.size()));
    const int n = enc.size();
    RunOptions full;
    full.keepAttention = false;
    full.keepFullLogits = true;
    full.prefillRows = 5;  // the same final hidden state as the runs below
    auto want = m.run(enc, full);
    ASSERT_TRUE(want.ok()) << want.error().message;
    ASSERT_EQ(want->logits.rows(), n);
    RunOptions blocked = full;
    blocked.keepFullLogits = false;
    auto every = m.run(enc, blocked);
    RunOptions lastOnly = blocked;
    lastOnly.topKEveryPosition = false;
    auto last = m.run(enc, lastOnly);
    ASSERT_TRUE(every.ok() && last.ok());
    EXPECT_EQ(every->logits.size(), 0);  // no [N, vocab] array kept
    ASSERT_EQ(every->nextTokens.size(), static_cast<size_t>(n));
    ASSERT_EQ(last->nextTokens.size(), static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const std::string at = fmt::format("position {}", i);
      const auto ref = referenceTop(want->logits, i, 6);
      expectSameTop(every->nextTokens[static_cast<size_t>(i)], ref, 1e-5, at + " (blocked head)");
      EXPECT_EQ(last->nextTokens[static_cast<size_t>(i)].empty(), i + 1 < n) << at;
      auto onDemand = m.nextTokensAt(*last, i, 5);
      ASSERT_TRUE(onDemand.ok()) << onDemand.error().message;
      expectSameTop(*onDemand, ref, 1e-5, at + " (on demand)");
      for (const TopToken& t : *onDemand) EXPECT_EQ(t.token, m.tokenizer().displayText(t.id)) << at;
    }
    expectSameTop(last->nextTokens.back(), referenceTop(want->logits, n - 1, 6), 1e-5, "last position");
    for (int bad : {-1, n}) {
      auto outside = m.nextTokensAt(*last, bad, 5);
      ASSERT_FALSE(outside.ok()) << bad;
      EXPECT_NE(outside.error().message.find(fmt::format("position {} is outside", bad)), std::string::npos)
          << outside.error().message;
    }
    EXPECT_FALSE(m.nextTokensAt(*last, 0, 0).ok());
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, StreamedForward,
                         ::testing::Values("gpt2", "bert", "llama", "llama3", "qwen2"));

// The window's Cancel: the forward asks the progress callback once before each layer
// (fraction l / (L + 1)) and before its output head (L / (L + 1)); false there stops the
// run, with an error that says so and no partial result.
TEST(StreamedForwardCancel, StopsBetweenLayersWithAClearError) {
  auto model = Model::open(modelDir("llama"));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const Model& m = **model;
  auto enc = m.encode("The animal didn't cross the street because it was too tired.", std::nullopt, "text");
  ASSERT_TRUE(enc.ok());
  const int layers = m.info().layers;
  ASSERT_GE(layers, 2);
  for (bool streamed : {true, false}) {
    SCOPED_TRACE(streamed ? "streamed" : "materialized");
    RunOptions options;
    options.streamed = streamed;
    std::vector<double> seen;
    auto stopAtLayer1 = [&](double f, std::string_view) {
      seen.push_back(f);
      return f < 1.0 / (layers + 1);  // layer 0 runs; stop before layer 1
    };
    auto run = m.run(*enc, options, stopAtLayer1);
    ASSERT_FALSE(run.ok());
    EXPECT_NE(run.error().message.find("cancelled"), std::string::npos) << run.error().message;
    EXPECT_NE(run.error().message.find("llama"), std::string::npos)
        << run.error().message;  // names the model
    ASSERT_EQ(seen.size(), 2u);  // nothing ran after the refusal
    EXPECT_DOUBLE_EQ(seen[1], 1.0 / (layers + 1));
    // Uncancelled: one report per layer, one before the output head, a last one at 1.
    seen.clear();
    auto whole = m.run(*enc, options, [&](double f, std::string_view) {
      seen.push_back(f);
      return true;
    });
    ASSERT_TRUE(whole.ok()) << whole.error().message;
    ASSERT_EQ(seen.size(), static_cast<size_t>(layers) + 2);
    EXPECT_DOUBLE_EQ(seen[static_cast<size_t>(layers)], static_cast<double>(layers) / (layers + 1));
    EXPECT_DOUBLE_EQ(seen.back(), 1.0);
    // Cancelled at the output head: the layers ran, the lm_head did not.
    seen.clear();
    auto atHead = m.run(*enc, options, [&](double f, std::string_view) {
      seen.push_back(f);
      return f < static_cast<double>(layers) / (layers + 1);
    });
    ASSERT_FALSE(atHead.ok());
    EXPECT_EQ(seen.size(), static_cast<size_t>(layers) + 1);
  }
}

TEST(StreamedForwardStore, HalfPrecisionMapsRectanglesAndSize) {
  auto model = Model::open(modelDir("llama"));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const Model& m = **model;
  auto enc = m.encode("The animal didn't cross the street because it was too tired.", std::nullopt, "text");
  ASSERT_TRUE(enc.ok());
  RunOptions full;
  auto want = m.run(*enc, full);
  ASSERT_TRUE(want.ok()) << want.error().message;
  const ModelInfo& info = m.info();
  for (QkPrecision p : {QkPrecision::F16, QkPrecision::BF16}) {
    RunOptions so;
    so.streamed = true;
    so.qkPrecision = p;
    auto got = m.run(*enc, so);
    ASSERT_TRUE(got.ok()) << got.error().message;
    const QkStore& s = *got->qk;
    // L x N x (H + KV) x head_dim x 2 bytes: keys once per KV head, not per query head.
    EXPECT_EQ(s.bytes(), int64_t{info.layers} * enc->size() * (info.heads + info.kvHeads) * info.headDim * 2);
    EXPECT_EQ(s.bytes(),
              QkStore::bytesFor(info.layers, enc->size(), info.heads, info.kvHeads, info.headDim, p));
    // Rounding q and k to 11 (F16) or 8 (BF16) significant bits moves the logits by about
    // |s| 2^-11 (2^-8); the weights of these small-logit heads move by less than this.
    const double tol = p == QkPrecision::F16 ? 2e-3 : 2e-2;
    for (int l = 0; l < info.layers; ++l)
      for (int h = 0; h < info.heads; ++h) {
        auto map = headMap(s, l, h, fullMap(s));
        ASSERT_TRUE(map.ok());
        EXPECT_LE((*map - want->layers[static_cast<size_t>(l)].heads[static_cast<size_t>(h)].weights)
                      .cwiseAbs()
                      .maxCoeff(),
                  tol)
            << qkPrecisionName(p) << " layer " << l << " head " << h;
      }
    const MapRect rect{3, 9, 1, 5};
    auto part = headMap(s, 1, 2, rect);
    auto whole = headMap(s, 1, 2, fullMap(s));
    ASSERT_TRUE(part.ok() && whole.ok());
    // Row blocks of another height round the GEMM's sums differently: cell for cell to 1e-6.
    EXPECT_LE((*part - whole->block(3, 1, 6, 4)).cwiseAbs().maxCoeff(), 1e-6);
  }
  RunOptions so;
  so.streamed = true;
  auto got = m.run(*enc, so);
  ASSERT_TRUE(got.ok());
  auto bad = headMap(*got->qk, info.layers, 0, fullMap(*got->qk));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("layer"), std::string::npos);
  auto badRect = headMap(*got->qk, 0, 0, MapRect{0, enc->size() + 1, 0, 2});
  ASSERT_FALSE(badRect.ok());
  EXPECT_NE(badRect.error().message.find("rectangle"), std::string::npos);
  so.interventions.push_back(HeadIntervention{});
  auto refused = m.run(*enc, so);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("streamed"), std::string::npos) << refused.error().message;
}

/// A 1-layer, 1-head store with all-zero queries: causal weights 1 / (i + 1) on j <= i.
QkStore uniformCausalStore(int n) {
  auto mask = Mask::parse("causal");
  EXPECT_TRUE(mask.ok());
  auto bound = mask->bind(n, n, {});
  EXPECT_TRUE(bound.ok());
  QkStore s(1, n, 1, 1, 2, QkPrecision::F32, *bound);
  Mat k(n, 2);
  for (int i = 0; i < n; ++i) k.row(i) << static_cast<float>(i), 1.0f - static_cast<float>(i);
  s.setLayer(0, Mat::Zero(n, 2), k, 0.5f);
  return s;
}

TEST(StreamedForwardStore, PooledOverviewHandComputed) {
  const QkStore s = uniformCausalStore(4);
  // rows 0-1 x cols 0-1: {1, 0; 1/2, 1/2}; rows 2-3 x cols 0-1: {1/3, 1/3; 1/4, 1/4};
  // rows 2-3 x cols 2-3: {1/3, 0; 1/4, 1/4}; rows 0-1 x cols 2-3: all 0.
  auto mx = pooledMap(s, 0, 0, 2, Pooling::Max);
  auto mean = pooledMap(s, 0, 0, 2, Pooling::Mean);
  ASSERT_TRUE(mx.ok() && mean.ok());
  Mat wantMax(2, 2), wantMean(2, 2);
  wantMax << 1.0f, 0.0f, 1.0f / 3, 1.0f / 3;
  wantMean << 0.5f, 0.0f, 7.0f / 24, 5.0f / 24;
  EXPECT_LE((*mx - wantMax).cwiseAbs().maxCoeff(), 1e-7);
  EXPECT_LE((*mean - wantMean).cwiseAbs().maxCoeff(), 1e-7);
  EXPECT_FALSE(pooledMap(s, 0, 0, 0, Pooling::Max).ok());
}

TEST(StreamedForwardStore, PooledOverviewEqualsDirectPoolingWithShortEdgeBlocks) {
  auto model = Model::open(modelDir("qwen2"));
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto enc = (*model)->encode("Call 555-0123 at 10:30, OK? The cat sat on the mat; the dog did not.",
                              std::nullopt, "text");
  ASSERT_TRUE(enc.ok());
  RunOptions so;
  so.streamed = true;
  so.qkPrecision = QkPrecision::F32;
  auto run = (*model)->run(*enc, so);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const QkStore& s = *run->qk;
  const int n = s.tokens(), B = 3;
  ASSERT_NE(n % B, 0) << "the test wants a short last block";
  auto full = headMap(s, 1, 1, fullMap(s));
  ASSERT_TRUE(full.ok());
  for (Pooling p : {Pooling::Max, Pooling::Mean}) {
    auto pooled = pooledMap(s, 1, 1, B, p);
    ASSERT_TRUE(pooled.ok());
    const int side = (n + B - 1) / B;
    ASSERT_EQ(pooled->rows(), side);
    for (int I = 0; I < side; ++I)
      for (int J = 0; J < side; ++J) {
        double acc = 0.0;  // weights are >= 0
        int cells = 0;
        for (int i = I * B; i < std::min(n, (I + 1) * B); ++i)
          for (int j = J * B; j < std::min(n, (J + 1) * B); ++j, ++cells)
            acc = p == Pooling::Max ? std::max(acc, static_cast<double>((*full)(i, j))) : acc + (*full)(i, j);
        if (p == Pooling::Mean) acc /= cells;
        EXPECT_NEAR((*pooled)(I, J), acc, 1e-6) << poolingName(p) << " block " << I << "," << J;
      }
  }
}

}  // namespace
}  // namespace attn::models
