// Positional encodings against their papers' formulas and properties.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "attn/attn.h"
#include "matrix_matchers.h"

namespace attn {
namespace {

TEST(Positions, ParseEveryName) {
  for (const auto& info : positionalEncodings()) {
    ASSERT_EQ(parsePositional(info.name), info.kind);
    EXPECT_EQ(positionalName(info.kind), info.name);
  }
  EXPECT_EQ(positionalEncodings().size(), 7u);  // sinusoidal2d joined for image patches
  EXPECT_FALSE(parsePositional("rotary").has_value());
}

TEST(Positions, SinusoidalMatchesTheFormulaAtKnownPositions) {
  // Vaswani et al. 2017, sec. 3.5, d_model = 16; values from Python's math module.
  const Mat pe = sinusoidalTable(101, 16);
  for (int c = 0; c < 16; ++c) EXPECT_FLOAT_EQ(pe(0, c), c % 2 == 0 ? 0.0f : 1.0f);
  EXPECT_NEAR(pe(1, 0), 0.8414709848078965, 1e-6);    // sin(1)
  EXPECT_NEAR(pe(1, 1), 0.5403023058681398, 1e-6);    // cos(1)
  EXPECT_NEAR(pe(10, 2), -0.020683531529582043, 1e-6);  // sin(10 / 10000^(2/16))
  EXPECT_NEAR(pe(10, 3), -0.9997860728793259, 1e-6);  // cos(10 / 10000^(2/16))
  EXPECT_NEAR(pe(7, 6), 0.2195560913524192, 1e-6);    // sin(7 / 10000^(6/16))
  EXPECT_NEAR(pe(100, 15), 0.9995000416652778, 1e-6);  // cos(100 / 10000^(14/16))
}

TEST(Positions, SinusoidalAndLearnedAreAddedToEmbeddings) {
  AttentionSpec spec;
  spec.seed = 3;
  const Mat x = Mat::Random(6, 8);
  spec.positional = PositionalEncoding::Sinusoidal;
  EXPECT_MATRIX_NEAR(addPositionsToEmbeddings(x, spec), Mat(x + sinusoidalTable(6, 8)), 1e-7);
  spec.positional = PositionalEncoding::Learned;
  EXPECT_MATRIX_NEAR(addPositionsToEmbeddings(x, spec), Mat(x + learnedPositionTable(6, 8, 3)), 1e-7);
  spec.positional = PositionalEncoding::Rope;  // not an embedding-level encoding
  EXPECT_MATRIX_NEAR(addPositionsToEmbeddings(x, spec), x, 0.0);
}

TEST(Positions, LearnedTableIsSeededAndLengthIndependent) {
  const Mat a = learnedPositionTable(40, 32, 11);
  EXPECT_MATRIX_NEAR(a, learnedPositionTable(40, 32, 11), 0.0);
  EXPECT_MATRIX_NEAR(Mat(a.topRows(5)), learnedPositionTable(5, 32, 11), 0.0);
  EXPECT_GT((a - learnedPositionTable(40, 32, 12)).cwiseAbs().maxCoeff(), 0.1f);
  // Entries ~ N(0, 1/2): mean square over 1280 draws near 0.5 (sd about 0.02).
  EXPECT_NEAR(a.squaredNorm() / a.size(), 0.5, 0.1);
}

TEST(Positions, RopeRotatesPairsByPosition) {
  // d = 2: theta_0 = 1, so row m is (1, 0) rotated by m radians.
  Mat x(3, 2);
  x << 1, 0, 1, 0, 0, 2;
  applyRope(x);
  EXPECT_NEAR(x(0, 0), 1.0, 1e-7);
  EXPECT_NEAR(x(1, 0), std::cos(1.0), 1e-6);
  EXPECT_NEAR(x(1, 1), std::sin(1.0), 1e-6);
  EXPECT_NEAR(x(2, 0), -2.0 * std::sin(2.0), 1e-6);
  EXPECT_NEAR(x(2, 1), 2.0 * std::cos(2.0), 1e-6);
}

TEST(Positions, RopePreservesNormsAndDotDependsOnlyOnOffset) {
  const int n = 24, d = 10;
  Mat q = Mat::Random(n, d), k = Mat::Random(n, d);
  const Mat q0 = q, k0 = k;
  applyRope(q);
  applyRope(k);
  for (int m = 0; m < n; ++m) {
    EXPECT_NEAR(q.row(m).norm(), q0.row(m).norm(), 1e-5);
    EXPECT_NEAR(k.row(m).norm(), k0.row(m).norm(), 1e-5);
  }
  // The same q and k vectors at every position: q_m . k_n depends on m - n only.
  Mat qs = q0.row(0).replicate(n, 1), ks = k0.row(1).replicate(n, 1);
  applyRope(qs);
  applyRope(ks);
  const Mat dots = qs * ks.transpose();
  for (int m = 0; m < n; ++m)
    for (int j = 0; j < n; ++j) {
      const int m2 = std::max(0, m - j) + 3, j2 = m2 - (m - j);  // same offset elsewhere
      if (m2 >= n || j2 >= n || j2 < 0) continue;
      EXPECT_NEAR(dots(m, j), dots(m2, j2), 1e-4) << m << "," << j;
    }
  EXPECT_NEAR(dots(0, 0), q0.row(0).dot(k0.row(1)), 1e-5);  // offset 0: the plain dot
}

TEST(Positions, AlibiSlopesMatchTheGeometricSequence) {
  // Press et al. 2022, sec. 3: 8 heads -> 1/2^1 ... 1/2^8.
  const std::vector<double> s8 = alibiSlopes(8);
  ASSERT_EQ(s8.size(), 8u);
  for (int h = 0; h < 8; ++h) EXPECT_DOUBLE_EQ(s8[h], std::pow(2.0, -(h + 1)));
  // 12 heads: the 8-head slopes, then every other slope of the 16-head sequence
  // 2^-0.5, 2^-1, 2^-1.5, ...: 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5.
  const std::vector<double> expected12 = {0.5,       0.25,      0.125,     0.0625,
                                          0.03125,   0.015625,  0.0078125, 0.00390625,
                                          0.7071067811865476, 0.3535533905932738,
                                          0.1767766952966369, 0.08838834764831845};
  const std::vector<double> s12 = alibiSlopes(12);
  ASSERT_EQ(s12.size(), 12u);
  for (int h = 0; h < 12; ++h) EXPECT_NEAR(s12[h], expected12[h], 1e-12) << h;
  // 16 heads: 2^-0.5 ... 2^-8.
  const std::vector<double> s16 = alibiSlopes(16);
  for (int h = 0; h < 16; ++h) EXPECT_NEAR(s16[h], std::pow(2.0, -0.5 * (h + 1)), 1e-12);
}

TEST(Positions, AlibiBiasIsMinusSlopeTimesDistance) {
  AttentionSpec spec;
  spec.positional = PositionalEncoding::Alibi;
  const Mat b = positionalLogitBias(2, 8, 4, 5, spec);  // head 3 of 8: m = 1/8
  ASSERT_EQ(b.rows(), 4);
  ASSERT_EQ(b.cols(), 5);
  EXPECT_FLOAT_EQ(b(3, 0), -0.375f);
  EXPECT_FLOAT_EQ(b(3, 3), 0.0f);
  EXPECT_FLOAT_EQ(b(0, 4), -0.5f);
}

TEST(Positions, T5BucketBoundariesFollowTheScheme) {
  // Bidirectional, 32 buckets, max distance 128: 16 per direction, 8 exact;
  // bucket 8 + k starts at distance ceil(8 * 16^(k/8)): 8, 12, 16, 23, 32, 46, 64, 91.
  struct Case { int rel, bucket; };
  const std::vector<Case> bi = {{0, 0},    {-1, 1},   {-7, 7},   {-8, 8},   {-11, 8},  {-12, 9},
                                {-15, 9},  {-16, 10}, {-22, 10}, {-23, 11}, {-31, 11}, {-32, 12},
                                {-45, 12}, {-46, 13}, {-63, 13}, {-64, 14}, {-90, 14}, {-91, 15},
                                {-128, 15}, {-5000, 15}, {1, 17}, {7, 23}, {8, 24}, {12, 25}, {16, 26},
                                {91, 31},  {5000, 31}};
  for (auto c : bi) EXPECT_EQ(t5Bucket(c.rel, true), c.bucket) << "relative " << c.rel;
  // Unidirectional (decoder): 32 buckets for the past, 16 exact; bucket 16 + k
  // starts at ceil(16 * 8^(k/16)): 16, 19, 21, 24, 27, 31, ..., 113; future keys -> 0.
  const std::vector<Case> uni = {{0, 0},    {5, 0},    {-1, 1},   {-15, 15}, {-16, 16}, {-18, 16},
                                 {-19, 17}, {-20, 17}, {-21, 18}, {-24, 19}, {-27, 20}, {-31, 21},
                                 {-99, 30}, {-112, 30}, {-113, 31}, {-1000, 31}};
  for (auto c : uni) EXPECT_EQ(t5Bucket(c.rel, false), c.bucket) << "relative " << c.rel;
}

TEST(Positions, T5BiasIsAPerHeadTableLookup) {
  AttentionSpec spec;
  spec.positional = PositionalEncoding::T5;
  for (bool causal : {false, true}) {
    spec.mask = causal ? Mask::causal() : Mask();  // decoder: unidirectional buckets
    const Mat b0 = positionalLogitBias(0, 4, 40, 40, spec), b1 = positionalLogitBias(1, 4, 40, 40, spec);
    // One value per bucket: cells share a value exactly when they share a bucket.
    std::map<int, float> byBucket;
    for (int i = 0; i < 40; ++i)
      for (int j = 0; j < 40; ++j) {
        const int bucket = t5Bucket(j - i, !causal);
        auto [it, fresh] = byBucket.emplace(bucket, b0(i, j));
        if (!fresh) { EXPECT_EQ(b0(i, j), it->second) << i << "," << j; }
      }
    std::set<float> distinct;
    for (auto [bucket, v] : byBucket) distinct.insert(v);
    EXPECT_EQ(distinct.size(), byBucket.size());
    EXPECT_NE(b0(0, 0), b1(0, 0));  // seeded per head
  }
}

TEST(Positions, EngineAppliesEachWhereItsPaperDoes) {
  AttentionSpec spec;
  spec.heads = 4;
  spec.dModel = 16;
  const auto in = inputFromTokens({"a", "b", "a", "b", "c"}, spec.dModel, 1);
  auto none = runAttention(in, spec);
  ASSERT_TRUE(none.ok());
  // Without positions, identical tokens get identical rows (permutation equivariance).
  EXPECT_MATRIX_NEAR(Mat(none->heads[0].weights.row(0)), Mat(none->heads[0].weights.row(2)), 0.0);
  for (auto p : {PositionalEncoding::Sinusoidal, PositionalEncoding::Learned, PositionalEncoding::Rope,
                 PositionalEncoding::Alibi, PositionalEncoding::T5}) {
    spec.positional = p;
    auto r = runAttention(in, spec);
    ASSERT_TRUE(r.ok()) << positionalName(p);
    const auto& h = r->heads[0];
    EXPECT_GT((h.weights.row(0) - h.weights.row(2)).cwiseAbs().maxCoeff(), 1e-4f) << positionalName(p);
    const bool logitLevel = p == PositionalEncoding::Alibi || p == PositionalEncoding::T5;
    EXPECT_EQ(h.logitBias.size() > 0, logitLevel) << positionalName(p);
    if (p == PositionalEncoding::Rope) {  // q rotated, norms kept
      EXPECT_NEAR(h.q.row(3).norm(), none->heads[0].q.row(3).norm(), 1e-4);
      EXPECT_GT((h.q.row(3) - none->heads[0].q.row(3)).norm(), 1e-3);
    }
    for (Eigen::Index i = 0; i < h.weights.rows(); ++i) EXPECT_NEAR(h.weights.row(i).sum(), 1.0f, 1e-5f);
  }
}

}  // namespace
}  // namespace attn
