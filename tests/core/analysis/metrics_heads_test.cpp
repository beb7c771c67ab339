// Head similarity, layers (rollout, flow), approximation error, invariants.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "attn/attn.h"
#include "matrix_matchers.h"

namespace attn {
namespace {

// Softmax of seeded random logits, causal when asked: a realistic head.
Mat randomHead(int n, uint32_t seed, bool causal, float scale = 2.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0.0f, scale);
  Mat a = Mat::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int j = 0; j < n; ++j) {
      if (causal && j > i) continue;
      a(i, j) = std::exp(g(rng));
      s += a(i, j);
    }
    a.row(i) /= static_cast<float>(s);
  }
  return a;
}

Mat rows2(float a, float b, float c, float d) {
  Mat m(2, 2);
  m << a, b, c, d;
  return m;
}

TEST(JensenShannon, HandValues) {
  Eigen::RowVectorXf p(2), q(2), r(2);
  p << 1, 0;
  q << 0, 1;
  r << 0.5f, 0.5f;
  EXPECT_NEAR(jensenShannon(p, q), std::log(2.0), 1e-6);  // disjoint: the maximum (fp32 logs)
  EXPECT_NEAR(jensenShannon(p, q, EntropyUnit::Bits), 1.0, 1e-6);
  // M = (.75, .25): KL(r||M) = .5 ln(2/3) + .5 ln 2 = 0.143841, KL(p||M) = ln(4/3) = 0.287682
  EXPECT_NEAR(jensenShannon(r, p), 0.5 * (0.143841 + 0.287682), 1e-6);
  EXPECT_EQ(jensenShannon(r, r), 0.0);
}

TEST(HeadSimilarity, SymmetricZeroForIdenticalAndOrderGroupsTwins) {
  const Mat a = randomHead(6, 1, true), b = randomHead(6, 2, true), c = randomHead(6, 3, false, 0.1f);
  // Heads 0 and 2 are the same head; 1 and 3 nearly so.
  Mat b2 = b;
  b2(5, 0) += 0.01f;
  b2.row(5) /= b2.row(5).sum();
  const std::vector<Mat> heads{a, b, a, b2, c};
  const Mat d = headSimilarityMatrix(heads);
  ASSERT_EQ(d.rows(), 5);
  EXPECT_MATRIX_NEAR(d, Mat(d.transpose()), 0.0);
  for (int h = 0; h < 5; ++h) EXPECT_EQ(d(h, h), 0.0f);
  EXPECT_NEAR(d(0, 2), 0.0, 1e-9);
  EXPECT_GT(d(0, 1), 0.01);
  EXPECT_LE(d.maxCoeff(), std::log(2.0));
  const auto order = similarityOrder(d);
  ASSERT_EQ(order.size(), 5u);
  auto pos = [&](int h) { return std::find(order.begin(), order.end(), h) - order.begin(); };
  EXPECT_EQ(std::abs(pos(0) - pos(2)), 1);
  EXPECT_EQ(std::abs(pos(1) - pos(3)), 1);
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(Rollout, HandExampleAndTwoHeads) {
  // A = [[1,0],[.5,.5]] -> A' = .5A + .5I = [[1,0],[.25,.75]];
  // two layers: A'A' = [[1,0],[.25 + .75*.25, .75*.75]] = [[1,0],[.4375,.5625]].
  const Mat a = rows2(1, 0, 0.5f, 0.5f);
  auto r = attentionRollout({{a}, {a}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_MATRIX_NEAR((*r)[0], rows2(1, 0, 0.25f, 0.75f), 1e-7);
  EXPECT_MATRIX_NEAR((*r)[1], rows2(1, 0, 0.4375f, 0.5625f), 1e-7);
  // Heads are averaged first: [[1,0],[1,0]] and [[0,1],[0,1]] -> all 0.5 -> [[.75,.25],[.25,.75]].
  auto r2 = attentionRollout({{rows2(1, 0, 1, 0), rows2(0, 1, 0, 1)}});
  ASSERT_TRUE(r2.ok());
  EXPECT_MATRIX_NEAR(r2->front(), rows2(0.75f, 0.25f, 0.25f, 0.75f), 1e-7);
}

TEST(Rollout, RowsSumToOneThroughManyLayers) {
  LayeredWeights layers;
  for (int l = 0; l < 6; ++l) layers.push_back({randomHead(9, 10 + l, true), randomHead(9, 20 + l, false)});
  layers[3][0].row(4).setZero();  // a fully masked row becomes the identity row
  auto r = attentionRollout(layers);
  ASSERT_TRUE(r.ok());
  for (const Mat& m : *r) {
    EXPECT_MATRIX_NEAR(m.rowwise().sum(), Vec::Ones(9), 1e-5);
    EXPECT_GE(m.minCoeff(), 0.0f);
  }
}

// R_l = A'_l R_{l-1} straight from the definition, every cell in double.
std::vector<Eigen::MatrixXd> rolloutByDefinition(const LayeredWeights& layers) {
  std::vector<Eigen::MatrixXd> out;
  for (const auto& heads : layers) {
    const Eigen::Index n = heads.front().rows();
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n);
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Eigen::Index j = 0; j < n; ++j) {
        double mean = 0;
        for (const Mat& h : heads) mean += h(i, j);
        a(i, j) = 0.5 * mean / static_cast<double>(heads.size()) + (i == j ? 0.5 : 0.0);
      }
      a.row(i) /= a.row(i).sum();
    }
    out.push_back(out.empty() ? a : Eigen::MatrixXd(a * out.back()));
  }
  return out;
}

TEST(Rollout, LongCausalAndMixedLayersEqualTheDefinition) {
  // 300 tokens: the rows and column blocks are split over threads, the last
  // block partial. Causal layers take the triangular product; a bidirectional
  // layer after them switches back to the dense one.
  for (const bool mixed : {false, true}) {
    LayeredWeights layers;
    for (int l = 0; l < 4; ++l)
      layers.push_back({randomHead(300, 40 + l, !(mixed && l == 2)), randomHead(300, 50 + l, true, 0.5f)});
    auto r = attentionRollout(layers);
    ASSERT_TRUE(r.ok()) << r.error().message;
    const auto ref = rolloutByDefinition(layers);
    ASSERT_EQ(r->size(), ref.size());
    for (size_t l = 0; l < ref.size(); ++l) {
      EXPECT_MATRIX_NEAR((*r)[l], Mat(ref[l].cast<float>()), 1e-6) << "mixed " << mixed << " layer " << l + 1;
      const bool causalSoFar = !mixed || l < 2;
      EXPECT_EQ((*r)[l].triangularView<Eigen::StrictlyUpper>().toDenseMatrix().isZero(0.0), causalSoFar);
    }
  }
}

TEST(Rollout, RunningFromHeadSumsEqualsTheDefinition) {
  // A forward that keeps no map gives each layer's sum over its heads: the same A' (a row with no
  // mass, a fully masked query, becomes the identity row as in residualAttention), R_l each layer.
  for (const bool mixed : {false, true}) {
    LayeredWeights layers;
    for (int l = 0; l < 4; ++l) {
      layers.push_back({randomHead(300, 60 + l, !(mixed && l == 2)), randomHead(300, 70 + l, true, 0.5f),
                        randomHead(300, 80 + l, true)});
      for (Mat& h : layers.back()) h.row(7).setZero();
    }
    const auto ref = rolloutByDefinition(layers);
    RunningRollout rollout;
    for (size_t l = 0; l < layers.size(); ++l) {
      Mat sum = Mat::Zero(300, 300);
      for (const Mat& h : layers[l]) sum += h;
      ASSERT_TRUE(rollout.addHeadSum(sum, 3).ok());
      EXPECT_EQ(rollout.layers(), static_cast<int>(l) + 1);
      EXPECT_MATRIX_NEAR(rollout.current(), Mat(ref[l].cast<float>()), 1e-6)
          << "mixed " << mixed << " layer " << l + 1;
    }
    EXPECT_FLOAT_EQ(rollout.current()(7, 7), 1.0f);  // the masked query keeps only itself, layer after layer
    EXPECT_FALSE(rollout.addHeadSum(Mat::Zero(299, 299), 3).ok());
    EXPECT_EQ(rollout.layers(), 4);  // a refused layer leaves R as it was
    EXPECT_MATRIX_NEAR(rollout.current(), Mat(ref.back().cast<float>()), 1e-6);
  }
  RunningRollout fresh;
  const auto bad = fresh.add(Mat::Constant(2, 3, 1.0f / 3));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("layer 1 is 2x3"), std::string::npos) << bad.error().message;
}

TEST(Rollout, BadShapesAreErrors) {
  EXPECT_FALSE(attentionRollout({}).ok());
  EXPECT_FALSE(attentionRollout({{}}).ok());
  auto r = attentionRollout({{Mat::Constant(2, 3, 1.0f / 3)}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("layer 1 head 1 is 2x3"), std::string::npos) << r.error().message;
  auto r2 = attentionRollout({{Mat::Identity(2, 2)}, {Mat::Identity(3, 3)}});
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().message.find("layer 2 head 1 is 3x3, others are 2x2"), std::string::npos);
}

TEST(AttentionFlow, HandExampleDiffersFromRollout) {
  // Two layers of A' = [[1,0],[.25,.75]] (from A = [[1,0],[.5,.5]]). Edges
  // j -> i with capacity A'(i,j): a->a 1, a->b .25, b->b .75 in each layer.
  // Into output b: from input a, paths a->a->b (.25) and a->b->b (.25): 0.5;
  // from input b, b->b->b: 0.75. Normalized: [0.4, 0.6]; rollout says [.4375, .5625].
  // Into output a only a->a->a: [1, 0].
  const Mat a = rows2(1, 0, 0.5f, 0.5f);
  auto f = attentionFlow({{a}, {a}});
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_MATRIX_NEAR(*f, rows2(1, 0, 0.4f, 0.6f), 1e-6);
}

TEST(AttentionFlow, OneLayerEqualsRolloutAndRowsSumToOne) {
  LayeredWeights one{{randomHead(7, 5, false), randomHead(7, 6, true)}};
  auto f = attentionFlow(one);
  auto r = attentionRollout(one);
  ASSERT_TRUE(f.ok() && r.ok());
  EXPECT_MATRIX_NEAR(*f, r->front(), 1e-5);

  LayeredWeights layers;
  for (int l = 0; l < 4; ++l) layers.push_back({randomHead(8, 30 + l, true)});
  auto f4 = attentionFlow(layers);
  ASSERT_TRUE(f4.ok());
  EXPECT_MATRIX_NEAR(f4->rowwise().sum(), Vec::Ones(8), 1e-5);
  // Causal through every layer: token i can only be reached from inputs j <= i.
  for (int i = 0; i < 8; ++i)
    for (int j = i + 1; j < 8; ++j) EXPECT_EQ((*f4)(i, j), 0.0f);
}

TEST(AttentionFlow, RefusesPastTheSizeLimit) {
  LayeredWeights big(20, std::vector<Mat>{Mat::Constant(40, 40, 1.0f / 40)});  // 20 * 40^4 = 5.1e7
  auto f = attentionFlow(big);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("too large"), std::string::npos) << f.error().message;
}

TEST(LayeredAnalysis, PerLayerMeasuresRolloutAndFlow) {
  LayeredWeights layers;
  for (int l = 0; l < 3; ++l) layers.push_back({randomHead(5, 40 + l, true), randomHead(5, 50 + l, true)});
  layers[1][1].row(2) *= 0.5f;  // a bad row in a precomputed file
  const LayeredAnalysis an = analyzeLayers(layers, {});
  ASSERT_EQ(an.layers.size(), 3u);
  ASSERT_EQ(an.rollout.size(), 3u);
  EXPECT_EQ(an.flow.rows(), 5);
  EXPECT_TRUE(an.flowNote.empty());
  ASSERT_EQ(an.warnings.size(), 1u);
  EXPECT_NE(an.warnings[0].find("layer 2 head 2: 1 row(s) do not sum to 1 (row 2 sums to 0.5"), std::string::npos)
      << an.warnings[0];
  EXPECT_NEAR(an.layers[0].heads[1].entropyMean, analyzeHeads({layers[0][1]}, {}).heads[0].entropyMean, 1e-9);
}

TEST(ApproximationError, HandValuesAndErrors) {
  Mat exact(1, 2), approx(1, 2);
  exact << 0.5f, 0.5f;
  approx << 0.75f, 0.25f;
  auto e = approximationError(exact, approx);
  ASSERT_TRUE(e.ok());
  EXPECT_NEAR(e->frobenius, std::sqrt(2 * 0.0625), 1e-7);
  EXPECT_NEAR(e->relativeFrobenius, std::sqrt(2 * 0.0625) / std::sqrt(0.5), 1e-7);
  EXPECT_NEAR(e->meanRowKl, 0.143841, 1e-6);  // .5 ln(.5/.75) + .5 ln(.5/.25)
  EXPECT_EQ(e->rowsCompared, 1);

  const Mat a = randomHead(6, 9, true);
  auto same = approximationError(a, a);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->frobenius, 0.0);
  EXPECT_NEAR(same->meanRowKl, 0.0, 1e-12);

  auto bad = approximationError(a, Mat::Zero(6, 5));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("6x6"), std::string::npos);
  Mat nan = a;
  nan(2, 1) = std::nanf("");
  EXPECT_FALSE(approximationError(a, nan).ok());

  // An approximation that drops a row's mass: finite, warned.
  Mat dropped = a;
  dropped.row(3).setZero();
  auto d = approximationError(a, dropped);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(std::isfinite(d->meanRowKl));
  EXPECT_EQ(d->worstRow, 3);
  ASSERT_EQ(d->warnings.size(), 1u);
  EXPECT_NE(d->warnings[0].find("row 3"), std::string::npos);
}

// Invariants on every head the engine produces, with and without a mask.
TEST(MetricsInvariants, EngineHeadsStayInBounds) {
  for (const char* maskSpec : {"none", "causal"}) {
    AttentionSpec spec;
    spec.heads = 4;
    spec.dModel = 32;
    auto mask = Mask::parse(maskSpec);
    ASSERT_TRUE(mask.ok());
    spec.mask = *mask;
    auto res = runAttention(inputFromTokens(tokenizeWords("The cat sat on the mat, and it purred."), 32, 11), spec);
    ASSERT_TRUE(res.ok());
    const Analysis an = analyzeResult(*res);
    EXPECT_TRUE(an.warnings.empty()) << an.warnings.front();
    ASSERT_EQ(an.heads.size(), 4u);
    for (const auto& h : an.heads) {
      for (int i = 0; i < h.rows; ++i) {
        EXPECT_GE(h.perRow.entropy[i], 0.0f);
        EXPECT_LE(h.perRow.entropy[i], std::log(static_cast<double>(h.perRow.keptKeys[i])) + 1e-5);
        EXPECT_GE(h.perRow.normalizedEntropy[i], 0.0f);
        EXPECT_LE(h.perRow.normalizedEntropy[i], 1.0f);
        EXPECT_GE(h.perRow.coverageK[i], 1.0f);
        EXPECT_LE(h.perRow.coverageK[i], h.perRow.keptKeys[i]);
      }
      EXPECT_GT(h.shares.separatorKeys, 0);  // "," and "."
      EXPECT_NEAR(h.offsets.mass.sum(), 1.0, 1e-5);
      if (std::string(maskSpec) == "causal") {
        EXPECT_EQ(h.perRow.keptKeys[0], 1);
        EXPECT_EQ(h.offsets.at(1), 0.0);  // nothing ahead
      }
    }
    EXPECT_EQ(an.headOrder.size(), 4u);
  }
}

}  // namespace
}  // namespace attn

namespace attn {
namespace {

// The tiled metrics-only path keeps row entropy but no weights: the analysis
// reports that entropy (in the chosen unit) and says what is missing.
TEST(MetricsOnlyResult, EntropyMeasuredOtherMeasuresNamedMissing) {
  AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 16;
  spec.exec = ExecPath::Tiled;
  spec.weightsHead = -2;  // no head's weights
  auto res = runAttention(inputFromTokens(tokenizeWords("a b c d e f"), 16, 3), spec);
  ASSERT_TRUE(res.ok()) << res.error().message;
  ASSERT_EQ(res->heads[0].weights.size(), 0);
  AnalysisOptions bits;
  bits.unit = EntropyUnit::Bits;
  const Analysis an = analyzeResult(*res, bits);
  ASSERT_EQ(an.heads.size(), 2u);
  EXPECT_EQ(an.nk, 6);
  EXPECT_NEAR(an.uniformBound, std::log2(6.0), 1e-9);
  for (int h = 0; h < 2; ++h)
    EXPECT_NEAR(an.heads[h].entropyMean, res->heads[h].entropy.mean() / std::log(2.0), 1e-6);
  ASSERT_EQ(an.warnings.size(), 1u);
  EXPECT_NE(an.warnings[0].find("2 head(s) ran on the metrics-only path"), std::string::npos) << an.warnings[0];
}

}  // namespace
}  // namespace attn
