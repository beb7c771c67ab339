// Per-row and per-head measures against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <numbers>
#include <random>

#include "attn/metrics.h"
#include "matrix_matchers.h"

namespace attn {
namespace {

// The 3x3 example worked by hand (causal: row i may see keys 0..i):
//   A = [[1,   0,   0  ],
//        [0.5, 0.5, 0  ],
//        [0.2, 0.3, 0.5]]
// entropy   row0 0; row1 ln2 = 0.693147;
//           row2 0.2 ln5 + 0.3 ln(10/3) + 0.5 ln2 = 0.321888 + 0.361192 + 0.346574 = 1.029653
// normalized row0 0 (one key); row1 ln2/ln2 = 1; row2 1.029653/ln3 = 0.937231
// max        1, 0.5, 0.5            -> confidence 2/3
// max-min    0, 0, 0.5-0.2 = 0.3    -> mean 0.1; ratio 1, 1, 2.5 -> geometric mean 2.5^(1/3)
// distance   0, 0.5*1, 0.2*2+0.3*1 = 0.7 -> mean 0.4
// offsets    o=0: (1+.5+.5)/3, o=-1: (.5+.3)/3, o=-2: .2/3
// shares     diagonal 2/3; previous (rows 1,2) (.5+.3)/2 = .4; next (rows 0,1) 0;
//            first (1+.5+.2)/3 = .566667; separator (key 1 is ",") (0+.5+.3)/3 = .266667
// coverage90 row0 1; row1 2 (0.5 < 0.9); row2 3 (0.5+0.3 < 0.9) -> mean 2, fraction 1
Mat handExample() {
  Mat a(3, 3);
  a << 1, 0, 0, 0.5f, 0.5f, 0, 0.2f, 0.3f, 0.5f;
  return a;
}

KeepMask causalKeep(int n) {
  KeepMask k(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) k(i, j) = j <= i;
  return k;
}

TEST(RowEntropy, HandExampleInNatsAndBits) {
  const Vec h = rowEntropy(handExample());
  EXPECT_FLOAT_EQ(h[0], 0.0f);
  EXPECT_NEAR(h[1], 0.693147, 1e-6);
  EXPECT_NEAR(h[2], 1.029653, 1e-6);
  const Vec b = rowEntropy(handExample(), EntropyUnit::Bits);
  EXPECT_NEAR(b[1], 1.0, 1e-6);
  EXPECT_NEAR(b[2], 1.029653 / std::numbers::ln2, 1e-6);
}

TEST(RowEntropy, NormalizedUsesUnmaskedKeyCount) {
  const Vec n = normalizedRowEntropy(handExample(), causalKeep(3));
  EXPECT_FLOAT_EQ(n[0], 0.0f);  // one allowed key: 0, not 0/0
  EXPECT_NEAR(n[1], 1.0, 1e-6);
  EXPECT_NEAR(n[2], 0.937231, 1e-6);
  // Without a mask the non-zero weights are the unmasked keys: same here.
  EXPECT_MATRIX_NEAR(normalizedRowEntropy(handExample()), n, 1e-7);
}

TEST(RowEntropy, UniformAndOneHotRows) {
  Mat u = Mat::Constant(1, 4, 0.25f);
  EXPECT_NEAR(rowEntropy(u)[0], std::log(4.0), 1e-6);
  EXPECT_NEAR(rowEntropy(u, EntropyUnit::Bits)[0], 2.0, 1e-6);
  EXPECT_NEAR(normalizedRowEntropy(u)[0], 1.0, 1e-6);
  Mat o = Mat::Zero(1, 4);
  o(0, 2) = 1.0f;
  EXPECT_EQ(rowEntropy(o)[0], 0.0f);
  EXPECT_EQ(normalizedRowEntropy(o, KeepMask::Constant(1, 4, true))[0], 0.0f);
}

TEST(RowMeasures, HandExample) {
  const Mat a = handExample();
  const KeepMask keep = causalKeep(3);
  EXPECT_MATRIX_NEAR(rowMaxWeight(a), Vec((Vec(3) << 1, 0.5f, 0.5f).finished()), 1e-7);
  EXPECT_MATRIX_NEAR(rowMaxMinGap(a, keep), Vec((Vec(3) << 0, 0, 0.3f).finished()), 1e-6);
  EXPECT_MATRIX_NEAR(rowMaxMinRatio(a, keep), Vec((Vec(3) << 1, 1, 2.5f).finished()), 1e-6);
  EXPECT_MATRIX_NEAR(rowMeanDistance(a), Vec((Vec(3) << 0, 0.5f, 0.7f).finished()), 1e-6);
  EXPECT_MATRIX_NEAR(rowCoverageK(a, 0.9), Vec((Vec(3) << 1, 2, 3).finished()), 0);
  EXPECT_MATRIX_NEAR(rowCoverageK(a, 0.5), Vec((Vec(3) << 1, 1, 1).finished()), 0);

  const OffsetProfile p = relativeOffsetProfile(a);
  EXPECT_EQ(p.minOffset, -2);
  ASSERT_EQ(p.mass.size(), 5);
  EXPECT_NEAR(p.at(0), 2.0 / 3, 1e-6);
  EXPECT_NEAR(p.at(-1), 0.8 / 3, 1e-6);
  EXPECT_NEAR(p.at(-2), 0.2 / 3, 1e-6);
  EXPECT_EQ(p.at(1), 0.0);
  EXPECT_NEAR(p.mass.sum(), 1.0, 1e-6);

  const PatternShares s = patternShares(a, separatorKeys({"a", ",", "b"}, 3));
  EXPECT_NEAR(s.diagonal, 2.0 / 3, 1e-6);
  EXPECT_NEAR(s.previous, 0.4, 1e-6);
  EXPECT_NEAR(s.next, 0.0, 1e-7);
  EXPECT_NEAR(s.first, 1.7 / 3, 1e-6);
  EXPECT_NEAR(s.separator, 0.8 / 3, 1e-6);
  EXPECT_EQ(s.separatorKeys, 1);
}

TEST(RowMeasures, UniformAndOneHot) {
  Mat u = Mat::Constant(1, 10, 0.1f);
  EXPECT_FLOAT_EQ(rowMaxMinGap(u)[0], 0.0f);
  EXPECT_NEAR(rowMaxMinRatio(u)[0], 1.0, 1e-6);
  EXPECT_EQ(rowCoverageK(u, 0.9)[0], 9.0f);  // ceil(0.9 * 10) despite 0.1 not exact in fp32
  EXPECT_EQ(rowCoverageK(u, 1.0)[0], 10.0f);
  Mat o = Mat::Zero(1, 10);
  o(0, 3) = 1.0f;
  const KeepMask all = KeepMask::Constant(1, 10, true);
  EXPECT_FLOAT_EQ(rowMaxMinGap(o, all)[0], 1.0f);
  EXPECT_NEAR(rowMaxMinRatio(o, all)[0], 1.0 / kMaxMinRatioFloor, 1.0);  // finite, floored
  EXPECT_EQ(rowCoverageK(o)[0], 1.0f);
  EXPECT_NEAR(rowMeanDistance(o)[0], 3.0, 1e-6);  // row 0 looks 3 tokens ahead
}

TEST(RowMeasures, SeparatorTokens) {
  for (const char* t : {".", ",", "[SEP]", "</s>", "<|endoftext|>", "\xE3\x80\x82" /*。*/, "\xEF\xBC\x8C" /*，*/,
                        "\xC4\xA0." /*Ġ.*/, "?!", "\xE2\x80\x94" /*—*/})
    EXPECT_TRUE(isSeparatorToken(t)) << t;
  for (const char* t : {"the", "[CLS]", "a.", "", "\xE4\xBD\xA0" /*你*/, "\xC4\xA0the", "3", "\xFF"})
    EXPECT_FALSE(isSeparatorToken(t)) << t;
}

TEST(RowMeasures, FullyMaskedRowsGiveZeroNotNaN) {
  Mat a = Mat::Zero(2, 3);
  a.row(1) << 0.2f, 0.3f, 0.5f;
  KeepMask keep = KeepMask::Constant(2, 3, true);
  keep.row(0).setConstant(false);
  for (const Vec& v : {rowEntropy(a), normalizedRowEntropy(a, keep), rowMaxWeight(a), rowMaxMinGap(a, keep),
                       rowMaxMinRatio(a, keep), rowMeanDistance(a), rowCoverageK(a)}) {
    EXPECT_TRUE(v.allFinite());
    EXPECT_LE(std::abs(v[0]), 1.0f);
  }
  const OffsetProfile p = relativeOffsetProfile(a);
  EXPECT_TRUE(p.mass.allFinite());
  EXPECT_NEAR(p.mass.sum(), 1.0, 1e-6);  // averaged over the one row with mass
  EXPECT_NEAR(patternShares(a, {}).first, 0.2, 1e-6);
}

TEST(HeadAnalysis, HandExampleSummaries) {
  const Analysis an = analyzeHeads({handExample()}, {"a", ",", "b"}, {causalKeep(3)});
  ASSERT_EQ(an.heads.size(), 1u);
  EXPECT_TRUE(an.warnings.empty()) << an.warnings.front();
  const HeadAnalysis& h = an.heads[0];
  EXPECT_NEAR(h.entropyMean, (0.693147 + 1.029653) / 3, 1e-6);
  EXPECT_NEAR(h.entropyMin, 0.0, 1e-7);
  EXPECT_NEAR(h.entropyMax, 1.029653, 1e-6);
  EXPECT_NEAR(h.normalizedEntropyMean, (1 + 0.937231) / 3, 1e-6);
  EXPECT_NEAR(h.confidence, 2.0 / 3, 1e-6);
  EXPECT_NEAR(h.maxMinGap, 0.1, 1e-6);
  EXPECT_NEAR(h.maxMinRatio, std::cbrt(2.5), 1e-6);
  EXPECT_NEAR(h.meanDistance, 0.4, 1e-6);
  EXPECT_NEAR(h.coverageK, 2.0, 1e-7);
  EXPECT_NEAR(h.coverageFraction, 1.0, 1e-7);
  EXPECT_NEAR(h.shares.separator, 0.8 / 3, 1e-6);
  // Collapse: rows 1 and 2 count (row 0 has one key); row 1 is uniform, so
  // exactly half are near-uniform: not "most", no flag.
  EXPECT_EQ(h.collapse.rowsCounted, 2);
  EXPECT_DOUBLE_EQ(h.collapse.uniformRowShare, 0.5);
  EXPECT_FALSE(h.collapse.nearUniform);
  EXPECT_FALSE(h.collapse.nearOneHot);
  EXPECT_NEAR(an.uniformBound, std::log(3.0), 1e-9);
}

TEST(HeadAnalysis, CollapseFlags) {
  Mat uniform = Mat::Constant(4, 4, 0.25f);
  Mat oneHot = Mat::Zero(4, 4);
  for (int i = 0; i < 4; ++i) oneHot(i, 0) = 1.0f;
  const KeepMask all = KeepMask::Constant(4, 4, true);
  const Analysis an = analyzeHeads({uniform, oneHot}, {}, {all, all});
  EXPECT_TRUE(an.heads[0].collapse.nearUniform);
  EXPECT_FALSE(an.heads[0].collapse.nearOneHot);
  EXPECT_FALSE(an.heads[1].collapse.nearUniform);
  EXPECT_TRUE(an.heads[1].collapse.nearOneHot);
  EXPECT_DOUBLE_EQ(an.heads[1].shares.first, 1.0);
  // Thresholds are options: a stricter share turns the flag off.
  AnalysisOptions strict;
  strict.collapse.uniformEntropy = 1.0;  // normalized entropy is never above 1
  EXPECT_FALSE(analyzeHeads({uniform}, {}, {all}, strict).heads[0].collapse.nearUniform);
}

TEST(HeadAnalysis, RowsNotSummingToOneAreNamedAndRescaled) {
  Mat a(3, 2);
  a << 0.4f, 0.4f,   // sums to 0.8
      0.5f, 0.5f,    // fine
      0.9f, 0.6f;    // sums to 1.5
  const Analysis an = analyzeHeads({a}, {});
  ASSERT_EQ(an.warnings.size(), 1u);
  const std::string& w = an.warnings[0];
  EXPECT_NE(w.find("head 1"), std::string::npos) << w;
  EXPECT_NE(w.find("2 row(s) do not sum to 1"), std::string::npos) << w;
  EXPECT_NE(w.find("row 0 sums to 0.8"), std::string::npos) << w;
  EXPECT_NE(w.find("row 2 sums to 1.5"), std::string::npos) << w;
  EXPECT_NE(w.find("largest deviation 0.5 at row 2"), std::string::npos) << w;
  // Measured on the rescaled rows: row 0 becomes uniform.
  EXPECT_NEAR(an.heads[0].perRow.entropy[0], std::log(2.0), 1e-6);
  EXPECT_NEAR(an.heads[0].perRow.maxWeight[2], 0.6, 1e-6);
}

TEST(HeadAnalysis, EmptyHeadAndFullyMaskedRowsWarnWithoutNaN) {
  Mat a = handExample();
  a.row(1).setZero();
  KeepMask keep = causalKeep(3);
  keep.row(1).setConstant(false);
  const Analysis an = analyzeHeads({Mat(), a}, {}, {KeepMask(), keep});
  ASSERT_EQ(an.heads.size(), 2u);
  ASSERT_EQ(an.warnings.size(), 2u);
  EXPECT_NE(an.warnings[0].find("head 1 is empty (0x0)"), std::string::npos) << an.warnings[0];
  EXPECT_NE(an.warnings[1].find("head 2: 1 fully masked row(s) (1)"), std::string::npos) << an.warnings[1];
  EXPECT_EQ(an.heads[0].entropyMean, 0.0);
  const HeadAnalysis& h = an.heads[1];
  EXPECT_EQ(h.emptyRows, std::vector<int>{1});
  EXPECT_NEAR(h.entropyMean, 1.029653 / 2, 1e-6);  // rows 0 and 2 only
  for (const auto& measure : headMeasures()) {
    EXPECT_TRUE(std::isfinite(measure.value(an.heads[0]))) << measure.key;
    EXPECT_TRUE(std::isfinite(measure.value(h))) << measure.key;
  }
  EXPECT_TRUE(an.headDivergence.allFinite());
}

}  // namespace
}  // namespace attn

namespace attn {
namespace {

// rowCoverageK's quickselect against the definition: sort descending, take
// weights until the level of the row's mass is reached.
TEST(RowMeasures, CoverageMatchesSortedDefinitionOnRandomRows) {
  std::mt19937 rng(4);
  std::normal_distribution<float> g(0.0f, 2.5f);
  std::uniform_int_distribution<int> ties(0, 3);
  Mat a(200, 37);
  for (int i = 0; i < a.rows(); ++i) {
    for (int j = 0; j < a.cols(); ++j)
      a(i, j) = ties(rng) == 0 ? 0.01f : (ties(rng) == 1 ? 0.0f : std::exp(g(rng)));  // ties and zeros
    a.row(i) /= a.row(i).sum();
  }
  for (double level : {0.5, 0.9, 0.99, 1.0}) {
    const Vec k = rowCoverageK(a, level);
    for (int i = 0; i < a.rows(); ++i) {
      std::vector<float> r(a.row(i).data(), a.row(i).data() + a.cols());
      std::sort(r.begin(), r.end(), std::greater<>());
      double total = 0, acc = 0;
      for (float x : r) total += x;
      int want = 0;
      while (want < static_cast<int>(r.size()) && r[want] > 0 && acc < level * total * (1 - 1e-6)) acc += r[want++];
      ASSERT_EQ(k[i], want) << "row " << i << " level " << level;
    }
  }
}

}  // namespace
}  // namespace attn
