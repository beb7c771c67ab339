// The logit lens (core/attn/models/lens/) on the small random fixtures against
// reference_lens.npz (tests/scripts/gen_model_fixtures.py --step lens: every hidden
// state of the plain-PyTorch forward through the final norm and the unembedding, or
// BERT's masked-LM head, checked there against a float64 numpy forward), and one
// lens cell against logits worked by hand.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "attn/io/npy_reader.h"
#include "attn/models/lens/logit_lens.h"
#include "attn/models/model.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

using attn::test::loadNpz;
using attn::test::modelDir;

Encoding lensEncoding(const std::map<std::string, NpyArray>& ref, int c) {
  Encoding e;
  for (float v : ref.at(fmt::format("ids_{}", c)).values.data) e.ids.push_back(static_cast<int>(v));
  for (float v : ref.at(fmt::format("type_ids_{}", c)).values.data) e.typeIds.push_back(static_cast<int>(v));
  for (float v : ref.at(fmt::format("mask_{}", c)).values.data)
    e.attention.push_back(static_cast<uint8_t>(v));
  e.tokens.resize(e.ids.size());
  return e;
}

// An id is compared exactly only where its probability differs from its neighbours' in the
// ranking by more than this fraction (a logit gap above ~1e-3; the reference and the
// forward here agree to ~1e-5 in the logits). Relative, as most cells' 5th token has p < 1e-4.
constexpr float kClearGap = 1e-3f;
bool clearlyApart(float a, float b) { return std::abs(a - b) > kClearGap * std::max(a, b); }

class ModelLensReference : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelLensReference, MatchesPlainPyTorchReference) {
  const std::string name = GetParam();
  auto model = Model::open(modelDir(name));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const auto ref = loadNpz(modelDir(name) + "/reference.npz");
  const auto want = loadNpz(modelDir(name) + "/reference_lens.npz");
  const int L = (*model)->info().layers;
  int cases = 0;
  while (want.count(fmt::format("lens_top_ids_{}", cases))) ++cases;
  ASSERT_GT(cases, 0);
  int idsCompared = 0, idsTotal = 0, ranksCompared = 0;
  for (int c = 0; c < cases; ++c) {
    SCOPED_TRACE(fmt::format("{} case {}", name, c));
    const Encoding enc = lensEncoding(ref, c);
    const int n = enc.size();
    RunOptions opt;
    opt.logitLens = true;
    auto run = (*model)->run(enc, opt);
    ASSERT_TRUE(run.ok()) << run.error().message;
    ASSERT_TRUE(run->lens);
    const LogitLens& got = *run->lens;
    ASSERT_EQ(got.rows, L + 1);
    ASSERT_EQ(got.positions, n);
    ASSERT_EQ(got.k, 5);
    const auto& ids = want.at(fmt::format("lens_top_ids_{}", c));
    const auto& probs = want.at(fmt::format("lens_top_probs_{}", c)).values.data;
    const auto& sixth = want.at(fmt::format("lens_sixth_probs_{}", c)).values.data;
    const auto& rank = want.at(fmt::format("lens_final_rank_{}", c)).values.data;
    const auto& finalProb = want.at(fmt::format("lens_final_probs_{}", c)).values.data;
    const auto& margin = want.at(fmt::format("lens_rank_margin_{}", c)).values.data;
    ASSERT_EQ(ids.shape, (std::vector<int64_t>{L + 1, n, 5}));
    for (int r = 0; r <= L; ++r)
      for (int i = 0; i < n; ++i) {
        const size_t cell = got.cell(r, i);
        for (int j = 0; j < 5; ++j) {
          const size_t at = cell * 5 + static_cast<size_t>(j);
          EXPECT_NEAR(got.topProb(r, i, j), probs[at], 1e-4)
              << "row " << r << " position " << i << " top " << j;
          const float above = j > 0 ? probs[at - 1] : 2.0f, below = j < 4 ? probs[at + 1] : sixth[cell];
          ++idsTotal;
          if (clearlyApart(above, probs[at]) && clearlyApart(probs[at], below)) {
            ++idsCompared;
            EXPECT_EQ(got.topId(r, i, j), static_cast<int>(ids.values.data[at]))
                << "row " << r << " position " << i << " top " << j;
          }
        }
        EXPECT_NEAR(got.prob(r, i), finalProb[cell], 1e-4) << "row " << r << " position " << i;
        if (margin[cell] > kClearGap * finalProb[cell]) {
          ++ranksCompared;
          EXPECT_EQ(got.rank(r, i), static_cast<int>(rank[cell])) << "row " << r << " position " << i;
        }
      }
    // Row L is the model's own prediction: rank 0 everywhere, the run's next tokens.
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(got.rank(L, i), 0);
      EXPECT_EQ(got.finalIds[static_cast<size_t>(i)], got.topId(L, i, 0));
      if (!run->nextTokens.empty()) {
        EXPECT_EQ(got.topId(L, i, 0), run->nextTokens[static_cast<size_t>(i)][0].id);
        EXPECT_NEAR(got.topProb(L, i, 0), run->nextTokens[static_cast<size_t>(i)][0].prob, 1e-6);
      }
    }
  }
  // Random weights give distinct probabilities almost everywhere: the exact checks cover most cells.
  EXPECT_GT(idsCompared, idsTotal * 9 / 10) << idsCompared << " of " << idsTotal;
  EXPECT_GT(ranksCompared, 0);
}

INSTANTIATE_TEST_SUITE_P(Families, ModelLensReference,
                         ::testing::Values("gpt2", "bert", "llama", "llama3", "qwen2"));

TEST(LensCell, TopKTiesRankAndProbabilityByHand) {
  // logits 1, 3, 3, 0, 2: softmax denominators e^-2 + 1 + 1 + e^-3 + e^-1 (max 3 subtracted)
  const float l[] = {1, 3, 3, 0, 2};
  const double z = std::exp(-2.0) + 2.0 + std::exp(-3.0) + std::exp(-1.0);
  const LensCell c = lensCell(l, 5, 3, 4);
  EXPECT_EQ(c.ids, (std::vector<int>{1, 2, 4}));  // the tie 3 = 3 by the smaller id
  ASSERT_EQ(c.probs.size(), 3u);
  EXPECT_NEAR(c.probs[0], 1.0 / z, 1e-7);
  EXPECT_NEAR(c.probs[1], 1.0 / z, 1e-7);
  EXPECT_NEAR(c.probs[2], std::exp(-1.0) / z, 1e-7);
  EXPECT_EQ(c.finalId, 4);
  EXPECT_EQ(c.finalRank, 2);
  EXPECT_NEAR(c.finalProb, std::exp(-1.0) / z, 1e-7);
  EXPECT_EQ(lensCell(l, 5, 3, 2).finalRank, 1) << "id 1 has the same logit and the smaller id";
  EXPECT_EQ(lensCell(l, 5, 3, 3).finalRank, 4);
  const LensCell own = lensCell(l, 5, 9, -1);  // k clamped to the vocabulary; its own top-1
  EXPECT_EQ(own.ids, (std::vector<int>{1, 2, 4, 0, 3}));
  EXPECT_EQ(own.finalId, 1);
  EXPECT_EQ(own.finalRank, 0);
  EXPECT_EQ(lensCell(l, 0, 5, -1).ids.size(), 0u);
}

class ModelLens : public ::testing::Test {
 protected:
  void SetUp() override {
    auto m = Model::open(modelDir("gpt2"));
    ASSERT_TRUE(m.ok()) << m.error().message;
    model = *m;
    auto e = model->encode("The cat sat on the mat.", std::nullopt, "test");
    ASSERT_TRUE(e.ok());
    enc = *e;
  }
  std::shared_ptr<const Model> model;
  Encoding enc;
};

TEST_F(ModelLens, OnlyWhenAskedAndTheRunKeepsOnlyWhatItsOptionsAsk) {
  RunOptions plain;
  plain.keepQkv = false;
  auto base = model->run(enc, plain);
  ASSERT_TRUE(base.ok());
  EXPECT_FALSE(base->lens);
  RunOptions opt = plain;
  opt.logitLens = true;
  opt.onlyLayer = 1;
  auto run = model->run(enc, opt);
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_TRUE(run->lens);
  EXPECT_EQ(run->layers.size(), 1u);
  EXPECT_EQ(run->firstLayer, 1);
  EXPECT_TRUE(run->hiddenStates.empty());
  EXPECT_EQ(run->lens->rows, model->info().layers + 1);
  EXPECT_TRUE(run->layers[0].heads[0].weights.isApprox(base->layers[1].heads[0].weights));
  EXPECT_TRUE(run->finalHidden.isApprox(base->finalHidden));
  // with the contributions too: both, from one forward
  opt.contributions = true;
  opt.lensTopK = 3;
  auto both = model->run(enc, opt);
  ASSERT_TRUE(both.ok()) << both.error().message;
  ASSERT_TRUE(both->lens && both->contributions);
  EXPECT_EQ(both->lens->k, 3);
  EXPECT_EQ(both->lens->topIds, [&] {
    std::vector<int> first3;
    for (size_t cell = 0; cell < run->lens->finalRank.size(); ++cell)
      for (size_t j = 0; j < 3; ++j) first3.push_back(run->lens->topIds[cell * 5 + j]);
    return first3;
  }());
}

TEST_F(ModelLens, ProbabilitiesAreAProperRankingAndRowZeroIsTheEmbedding) {
  RunOptions opt;
  opt.logitLens = true;
  opt.keepHiddenStates = true;
  auto run = model->run(enc, opt);
  ASSERT_TRUE(run.ok());
  const LogitLens& lens = *run->lens;
  EXPECT_EQ(run->hiddenStates.size(), static_cast<size_t>(lens.rows));
  for (int r = 0; r < lens.rows; ++r)
    for (int i = 0; i < lens.positions; ++i) {
      float sum = 0;
      for (int j = 0; j < lens.k; ++j) {
        sum += lens.topProb(r, i, j);
        if (j > 0) EXPECT_GE(lens.topProb(r, i, j - 1), lens.topProb(r, i, j));
      }
      EXPECT_LE(sum, 1.0f + 1e-6f);
      EXPECT_LE(lens.prob(r, i), lens.topProb(r, i, 0) + 1e-7f);
      EXPECT_EQ(lens.rank(r, i) == 0, lens.topId(r, i, 0) == lens.finalIds[static_cast<size_t>(i)]);
      for (int j = 0; j < lens.k; ++j)  // a final token among the top k sits at its rank there
        if (lens.topId(r, i, j) == lens.finalIds[static_cast<size_t>(i)]) EXPECT_EQ(lens.rank(r, i), j);
    }
}

TEST_F(ModelLens, CancelledAndAnEncoderWithoutItsHeadAreClearErrors) {
  RunOptions opt;
  opt.logitLens = true;
  auto cancelled = model->run(enc, opt, [](double f, std::string_view) { return f < 0.95; });
  ASSERT_FALSE(cancelled.ok());
  EXPECT_NE(cancelled.error().message.find("cancelled"), std::string::npos);
  auto bare = Model::open(modelDir("bert_legacy"));
  ASSERT_TRUE(bare.ok()) << bare.error().message;
  auto e = (*bare)->encode("the cat sat", std::nullopt, "test");
  ASSERT_TRUE(e.ok());
  auto run = (*bare)->run(*e, opt);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.error().message.find("masked-LM head"), std::string::npos) << run.error().message;
  EXPECT_NE(run.error().message.find("config.json"), std::string::npos) << run.error().message;
}

}  // namespace
}  // namespace attn::models
