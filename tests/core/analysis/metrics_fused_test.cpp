// The fused row kernel, the parallel head divergence and the streamed analysis
// against the separate reference functions (row_measures.h,
// entropy.h, headJensenShannon), whose own values are hand-checked in
// metrics_rows_test.cpp and metrics_heads_test.cpp.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <random>
#include <string>
#include <tuple>

#include "attn/analysis/fused_rows.h"
#include "attn/analysis/head_similarity.h"
#include "attn/analysis/streamed_analysis.h"
#include "attn/engine.h"
#include "attn/metrics.h"
#include "matrix_matchers.h"

namespace attn {
namespace {

// Rows of every kind the measures treat specially: random softmax rows of
// varied sharpness, one-hot, uniform, ties, fully masked (all zero), a single
// allowed key, underflowed (zero) weights among allowed keys.
Mat mixedRows(int nq, int nk, uint64_t seed, KeepMask* keep = nullptr) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0f, 1.0f);
  Mat w = Mat::Zero(nq, nk);
  if (keep) keep->setConstant(nq, nk, true);
  for (int i = 0; i < nq; ++i) {
    const int kind = i % 7;
    if (kind == 0) {
      w(i, i % nk) = 1.0f;
    } else if (kind == 1) {
      w.row(i).setConstant(1.0f / nk);
    } else if (kind == 2) {  // ties: two levels
      for (int j = 0; j < nk; ++j) w(i, j) = j % 3 == 0 ? 2.0f : 1.0f;
      w.row(i) /= w.row(i).sum();
    } else if (kind == 3) {  // fully masked
      if (keep) keep->row(i).setConstant(false);
    } else if (kind == 4) {  // causal-like: keys 0..i allowed
      const int n = std::min(nk, i + 1);
      for (int j = 0; j < n; ++j) w(i, j) = std::exp(3.0f * g(rng));
      w.row(i) /= w.row(i).sum();
      if (keep)
        for (int j = n; j < nk; ++j) (*keep)(i, j) = false;
    } else {  // sharp or flat softmax, some weights underflowing to 0
      const float scale = kind == 5 ? 0.5f : 12.0f;
      for (int j = 0; j < nk; ++j) w(i, j) = std::exp(scale * g(rng) - 60.0f * (j % 11 == 0));
      w.row(i) /= w.row(i).sum();
      for (int j = 0; j < nk; ++j)
        if (w(i, j) < 1e-30f) w(i, j) = 0.0f;
    }
  }
  return w;
}

TEST(FusedRows, CoverageKEqualsTheSortedDefinition) {
  FusedRowScratch scratch;
  for (int nk : {1, 2, 7, 64, 333, 2048}) {
    const Mat w = mixedRows(40, nk, 7 + nk);
    for (double level : {0.5, 0.9, 0.99, 1.0}) {
      const Vec ref = rowCoverageK(w, level);
      for (int i = 0; i < w.rows(); ++i)
        EXPECT_EQ(coverageKOfRow(&w(i, 0), nk, level, scratch), ref[i]) << "nk " << nk << " level " << level << " row " << i;
    }
  }
}

// The bisection's hard cases: long rows (many passes), ties wider than the
// final bracket, denormal and huge entries, a few large weights over a flat
// floor, and level 1 (the whole tail down to the smallest weight counts).
TEST(FusedRows, CoverageKEqualsTheSortedDefinitionOnHardRows) {
  const int nk = 5003;
  std::mt19937_64 rng(3);
  std::normal_distribution<float> g(0.0f, 1.0f);
  Mat w = Mat::Zero(6, nk);
  for (int j = 0; j < nk; ++j) {
    w(0, j) = std::exp(8.0f * g(rng));                                  // spans many binades
    w(1, j) = j % 2 == 0 ? 1.0f : 3.0f;                                 // two tied levels, thousands each
    w(2, j) = j < 40 ? 1e-3f : 1e-9f;                                   // a few large over a flat floor
    w(3, j) = j % 7 == 0 ? std::numeric_limits<float>::denorm_min() * (1 + j % 5) : std::exp(g(rng));
    w(4, j) = j == 17 ? 1e30f : std::exp(g(rng));                       // one huge entry
    w(5, j) = j % 3 == 0 ? 0.0f : static_cast<float>(1 + j % 50);       // zeros and 50 tied levels
  }
  FusedRowScratch scratch;
  for (double level : {0.1, 0.5, 0.9, 0.999, 1.0}) {
    const Vec ref = rowCoverageK(w, level);
    for (int i = 0; i < w.rows(); ++i)
      EXPECT_EQ(coverageKOfRow(&w(i, 0), nk, level, scratch), ref[i]) << "level " << level << " row " << i;
  }
}

// Rows one after another as a head gives them, the warm start's case: runs of
// similar softmax rows (the last row's cut brackets the next: one exact pass,
// the greedy then inside a list of a few hundred entries) broken by jumps in
// sharpness (the cut falls outside: the search starts over), at 2048 keys.
TEST(FusedRows, CoverageKEqualsTheSortedDefinitionRowAfterRow) {
  const int nq = 120, nk = 2048;
  std::mt19937_64 rng(11);
  std::normal_distribution<float> g(0.0f, 1.0f);
  Mat w(nq, nk);
  for (int i = 0; i < nq; ++i) {
    const float sharpness = i % 40 < 30 ? 1.0f : 0.25f + 0.5f * static_cast<float>(i % 10);
    for (int j = 0; j < nk; ++j) w(i, j) = std::exp(sharpness * g(rng));
    w.row(i) /= w.row(i).sum();
  }
  for (double level : {0.5, 0.9, 0.99}) {
    FusedRowScratch scratch;
    const Vec ref = rowCoverageK(w, level);
    for (int i = 0; i < nq; ++i)
      EXPECT_EQ(coverageKOfRow(&w(i, 0), nk, level, scratch), ref[i]) << "level " << level << " row " << i;
  }
}

// The divergence from per-row sums: a row against itself is exactly 0, and
// any pair agrees with the separate definition (jensenShannon) to 1e-6 of the sums' size.
TEST(FusedRows, JensenShannonFromRowSumsEqualsTheDefinition) {
  for (int nk : {1, 5, 16, 97, 1000, 4099}) {
    const Mat w = mixedRows(21, nk, 40 + nk);
    for (int i = 0; i < w.rows(); ++i) {
      const Eigen::RowVectorXf a = w.row(i), b = w.row((i + 3) % w.rows());
      if (!(a.maxCoeff() > 0.0f) || !(b.maxCoeff() > 0.0f)) continue;
      const double la = plogpRow(a.data(), nk), lb = plogpRow(b.data(), nk);
      EXPECT_EQ(jsRowFromSums(a.data(), a.data(), la, la, nk), 0.0) << nk << " " << i;
      EXPECT_EQ(mlogmSum(a.data(), a.data(), nk), la) << nk << " " << i;
      // The one-pass row kernel sums p log p exactly as plogpRow does (the
      // streamed divergence takes a row's sum from it: identical heads give 0).
      FusedRowScratch scratch;
      EXPECT_EQ(measureRow(a.data(), nk, i, nullptr, 0.9, scratch).plogp, la) << nk << " " << i;
      // Halved rows: m = a/2 + b/2 is 0.5 (a + b) exactly unless a half is subnormal.
      const Eigen::RowVectorXf ha = 0.5f * a, hb = 0.5f * b;
      const auto normal = [](const Eigen::RowVectorXf& r) {
        return ((r.array() == 0.0f) || (r.array() >= 2 * std::numeric_limits<float>::min())).all();
      };
      if (normal(a) && normal(b)) {
        EXPECT_EQ(mlogmSumOfHalves(ha.data(), ha.data(), nk), la) << nk << " " << i;
        EXPECT_EQ(mlogmSumOfHalves(ha.data(), hb.data(), nk), mlogmSum(a.data(), b.data(), nk)) << nk << " " << i;
      }
      // 1e-6 relative to the sums' size (about log nk): JS is a difference of
      // float row sums whose rounding depends on the vector width of the engine
      // copy running (baseline SSE2 to AVX-512).
      const double js = jensenShannon(a, b), h = rowEntropy(Mat(a))[0];
      const double scale = std::max({1.0, std::abs(la), std::abs(lb)});
      EXPECT_NEAR(jsRowFromSums(a.data(), b.data(), la, lb, nk), js, 1e-6 * scale) << nk << " " << i;
      EXPECT_NEAR(0.5 * (la + lb) - mlogmSumOfHalves(ha.data(), hb.data(), nk), js, 1e-6 * scale) << nk << " " << i;
      EXPECT_NEAR(-la, h, 1e-6 * std::max(1.0, h)) << nk << " " << i;
    }
  }
}

TEST(FusedRows, MeasureRowAgreesWithTheSeparateFunctions) {
  for (bool masked : {false, true}) {
    const int nq = 50, nk = 97;
    KeepMask keep;
    const Mat w = mixedRows(nq, nk, 11, masked ? &keep : nullptr);
    const Vec h = rowEntropy(w), mx = rowMaxWeight(w), gap = rowMaxMinGap(w, keep), ratio = rowMaxMinRatio(w, keep);
    const Vec dist = rowMeanDistance(w), cov = rowCoverageK(w, 0.9);
    const auto kept = keptKeyCounts(w, keep);
    FusedRowScratch scratch;
    for (int i = 0; i < nq; ++i) {
      const FusedRow f = measureRow(&w(i, 0), nk, i, masked ? &keep(i, 0) : nullptr, 0.9, scratch);
      EXPECT_NEAR(std::max(0.0, -f.plogp), h[i], 1e-6) << i;
      EXPECT_EQ(f.kept, kept[static_cast<size_t>(i)]) << i;
      EXPECT_EQ(f.maxWeight, mx[i]) << i;
      EXPECT_NEAR(f.maxMinGap, gap[i], 1e-7) << i;
      EXPECT_NEAR(f.maxMinRatio, ratio[i], 1e-6 * ratio[i]) << i;
      EXPECT_NEAR(f.meanDistance, dist[i], 1e-6 * std::max(1.0f, dist[i])) << i;
      EXPECT_EQ(f.coverageK, cov[i]) << i;
      EXPECT_EQ(f.hasMass, w.row(i).maxCoeff() > 0.0f) << i;
    }
  }
}

void expectHeadMatchesSeparate(const HeadAnalysis& a, const Mat& w, const std::vector<bool>& sep, double tol) {
  EXPECT_MATRIX_NEAR(a.perRow.entropy, rowEntropy(w), tol);
  EXPECT_MATRIX_NEAR(a.perRow.maxWeight, rowMaxWeight(w), tol);
  EXPECT_MATRIX_NEAR(a.perRow.maxMinGap, rowMaxMinGap(w), tol);
  EXPECT_MATRIX_NEAR(a.perRow.meanDistance, rowMeanDistance(w), tol * w.cols());
  EXPECT_MATRIX_NEAR(a.perRow.coverageK, rowCoverageK(w, 0.9), 0.0);
  EXPECT_EQ(a.perRow.keptKeys, keptKeyCounts(w));
  const Vec ratio = rowMaxMinRatio(w);
  for (Eigen::Index i = 0; i < ratio.size(); ++i) EXPECT_NEAR(a.perRow.maxMinRatio[i], ratio[i], 1e-6 * ratio[i]);
  const OffsetProfile off = relativeOffsetProfile(w);
  EXPECT_EQ(a.offsets.minOffset, off.minOffset);
  EXPECT_MATRIX_NEAR(a.offsets.mass, off.mass, tol);
  const PatternShares s = patternShares(w, sep);
  EXPECT_NEAR(a.shares.diagonal, s.diagonal, tol);
  EXPECT_NEAR(a.shares.previous, s.previous, tol);
  EXPECT_NEAR(a.shares.next, s.next, tol);
  EXPECT_NEAR(a.shares.first, s.first, tol);
  EXPECT_NEAR(a.shares.separator, s.separator, tol);
  EXPECT_EQ(a.shares.separatorKeys, s.separatorKeys);
}

std::vector<std::string> tokensWithCommas(int n) {
  std::vector<std::string> t;
  for (int j = 0; j < n; ++j) t.push_back(j % 5 == 4 ? "," : "w" + std::to_string(j));
  return t;
}

TEST(FusedRows, AnalyzeHeadsAgreesWithTheSeparateFunctions) {
  const int n = 120;
  std::vector<Mat> heads = {mixedRows(n, n, 1), mixedRows(n, n, 2), mixedRows(n, n, 3)};
  const auto tokens = tokensWithCommas(n);
  const Analysis an = analyzeHeads(heads, tokens);
  const auto sep = separatorKeys(tokens, n);
  for (size_t h = 0; h < heads.size(); ++h) expectHeadMatchesSeparate(an.heads[h], heads[h], sep, 1e-6);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      EXPECT_NEAR(an.headDivergence(a, b), a == b ? 0.0 : headJensenShannon(heads[static_cast<size_t>(a)],
                                                                            heads[static_cast<size_t>(b)]),
                  1e-6);
  EXPECT_FALSE(an.divergenceInfo.sampled);
  EXPECT_EQ(an.divergenceInfo.rowsUsed, n);
}

TEST(HeadDivergence, ParallelMatrixEqualsPairwiseDefinitionInBitsToo) {
  std::vector<Mat> heads;
  for (int h = 0; h < 5; ++h) heads.push_back(mixedRows(64, 301, 100 + h));
  heads.push_back(heads[0]);  // a twin: exactly 0
  const Mat d = headSimilarityMatrix(heads, EntropyUnit::Bits);
  for (int a = 0; a < 6; ++a)
    for (int b = a + 1; b < 6; ++b)
      EXPECT_NEAR(d(a, b), headJensenShannon(heads[static_cast<size_t>(a)], heads[static_cast<size_t>(b)], EntropyUnit::Bits),
                  1e-6);
  EXPECT_EQ(d(0, 5), 0.0f);
}

// Heads with different habits (local, sink, broad), so pair divergences differ.
std::vector<Mat> habitHeads(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::vector<Mat> heads;
  for (int h = 0; h < 4; ++h) {
    Mat w(n, n);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        float s = g(rng) * (0.5f + h);
        if (h == 1) s -= 0.05f * std::abs(i - j);
        if (h == 2 && j == 0) s += 4.0f;
        w(i, j) = std::exp(s);
      }
      w.row(i) /= w.row(i).sum();
    }
    heads.push_back(std::move(w));
  }
  return heads;
}

TEST(HeadDivergence, SampledEstimateStaysWithinItsStatedBound) {
  const int n = 600;
  const auto heads = habitHeads(n, 5);
  const Mat exact = headSimilarityMatrix(heads);
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    DivergenceOptions opt;
    opt.mode = DivergenceOptions::Mode::Sampled;
    opt.sampleRows = 60;
    opt.seed = seed;
    DivergenceInfo info;
    const Mat est = headSimilarityMatrix(heads, EntropyUnit::Nats, opt, &info);
    ASSERT_TRUE(info.sampled);
    EXPECT_EQ(info.rowsUsed, 60);
    EXPECT_EQ(info.rowsTotal, n);
    // log 2 sqrt((1 - 59/600) log(2 * 6 / 0.01) / 120) = 0.693147 * sqrt(0.901667 * 7.090077 / 120) = 0.16000
    EXPECT_NEAR(info.bound, std::numbers::ln2 * std::sqrt((1.0 - 59.0 / 600) * std::log(1200.0) / 120.0), 1e-12);
    EXPECT_NEAR(info.bound, 0.16000, 5e-5);
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) EXPECT_LE(std::abs(est(a, b) - exact(a, b)), info.bound) << a << "," << b;
    EXPECT_GT((est - exact).cwiseAbs().maxCoeff(), 0.0f);  // it did sample
  }
  // Auto stays exact below its cell limit; Sampled with every row is exact.
  DivergenceInfo info;
  DivergenceOptions all;
  all.mode = DivergenceOptions::Mode::Sampled;
  all.sampleRows = n;
  EXPECT_MATRIX_NEAR(headSimilarityMatrix(heads, EntropyUnit::Nats, all, &info), exact, 0.0);
  EXPECT_FALSE(info.sampled);
}

// Auto samples once the exact cost, every pair's cells, passes the cell limit times 12 heads'
// 66 pairs: at 30 x 30 cells under a limit of 1000, 12 heads stay exact and 13 (78 pairs) sample.
TEST(HeadDivergence, AutoCountsThePairsOfManyHeads) {
  DivergenceOptions opt;
  opt.autoExactMaxCells = 1000;
  opt.sampleRows = 10;
  // (2 heads at 32 x 32 = 1024 cells: over the cell limit itself.)
  const std::tuple<int, int, bool> cases[] = {{12, 30, false}, {13, 30, true}, {2, 31, false}, {2, 32, true}};
  for (const auto& [heads, n, sampled] : cases) {
    DivergenceInfo info;
    const auto rows = divergenceRows(n, n, heads, opt, EntropyUnit::Nats, info);
    EXPECT_EQ(info.sampled, sampled) << heads << " heads, " << n << " rows";
    EXPECT_EQ(std::count(rows.begin(), rows.end(), 1), sampled ? 10 : n) << heads << " heads";
  }
  opt.mode = DivergenceOptions::Mode::Exact;
  DivergenceInfo info;
  divergenceRows(30, 30, 13, opt, EntropyUnit::Nats, info);
  EXPECT_FALSE(info.sampled);
}

AttentionInput randomQkv(int heads, int n, int d, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0f, 1.0f);
  AttentionInput in;
  for (int h = 0; h < heads; ++h) {
    for (auto* list : {&in.q, &in.k, &in.v}) {
      Mat m(n, d);
      for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] = g(rng) * (1.0f + h);
      list->push_back(std::move(m));
    }
  }
  for (int i = 0; i < n; ++i) in.queryTokens.push_back(i % 6 == 5 ? "." : "t" + std::to_string(i));
  return in;
}

void expectSameAnalysis(const Analysis& s, const Analysis& m) {
  ASSERT_EQ(s.heads.size(), m.heads.size());
  for (size_t h = 0; h < s.heads.size(); ++h) {
    const auto& a = s.heads[h].perRow;
    const auto& b = m.heads[h].perRow;
    EXPECT_MATRIX_NEAR(a.entropy, b.entropy, 1e-6);
    EXPECT_MATRIX_NEAR(a.normalizedEntropy, b.normalizedEntropy, 1e-6);
    EXPECT_MATRIX_NEAR(a.maxWeight, b.maxWeight, 1e-6);
    EXPECT_MATRIX_NEAR(a.maxMinGap, b.maxMinGap, 1e-6);
    EXPECT_MATRIX_NEAR(a.meanDistance, b.meanDistance, 1e-6 * s.nk);
    EXPECT_MATRIX_NEAR(a.coverageK, b.coverageK, 0.0);
    EXPECT_EQ(a.keptKeys, b.keptKeys);
    EXPECT_MATRIX_NEAR(s.heads[h].offsets.mass, m.heads[h].offsets.mass, 1e-6);
    EXPECT_NEAR(s.heads[h].maxMinRatio, m.heads[h].maxMinRatio, 1e-5 * m.heads[h].maxMinRatio);
    EXPECT_NEAR(s.heads[h].shares.separator, m.heads[h].shares.separator, 1e-6);
    EXPECT_NEAR(s.heads[h].shares.first, m.heads[h].shares.first, 1e-6);
    EXPECT_NEAR(s.heads[h].shares.previous, m.heads[h].shares.previous, 1e-6);
    EXPECT_EQ(s.heads[h].emptyRows, m.heads[h].emptyRows);
    EXPECT_EQ(s.heads[h].collapse.rowsCounted, m.heads[h].collapse.rowsCounted);
  }
  EXPECT_MATRIX_NEAR(s.headDivergence, m.headDivergence, 1e-6);
  EXPECT_EQ(s.headOrder, m.headOrder);
  EXPECT_EQ(s.warnings, m.warnings);
}

// Streamed (no N x N) against the materialized tiled weights analyzed by
// analyzeResult, under masks with fully masked rows and a positional bias.
TEST(StreamedAnalysis, EqualsTheMaterializedAnalysis) {
  for (const char* maskSpec : {"none", "causal", "padding:200"}) {
    for (auto pos : {PositionalEncoding::None, PositionalEncoding::Alibi}) {
      AttentionInput in = randomQkv(3, 230, 16, 9);
      AttentionSpec spec;
      spec.heads = 3;
      spec.dModel = 48;
      spec.exec = ExecPath::Tiled;
      spec.positional = pos;
      spec.mask = *Mask::parse(maskSpec);
      auto res = runAttention(in, spec);
      ASSERT_TRUE(res) << res.error().message;
      const Analysis m = analyzeResult(*res);
      AnalysisProfile prof;
      auto s = analyzeAttentionStreamed(in, spec, {}, &prof);
      ASSERT_TRUE(s) << s.error().message;
      SCOPED_TRACE(std::string(maskSpec) + (pos == PositionalEncoding::Alibi ? " alibi" : ""));
      EXPECT_EQ(s->nq, 230);
      EXPECT_EQ(s->keyTokens, res->keyTokens);
      expectSameAnalysis(s->analysis, m);
      EXPECT_EQ(s->warnings.empty(), res->warnings.empty());
      // And the materialized weights against the separate functions directly.
      const auto sep = separatorKeys(res->keyTokens, s->nk);
      for (size_t h = 0; h < 3; ++h) expectHeadMatchesSeparate(s->analysis.heads[h], res->heads[h].weights, sep, 1e-6);
      EXPECT_GE(prof.entries.size(), 8u);
    }
  }
}

TEST(StreamedAnalysis, SampledDivergenceInsideTheStreamWithinBound) {
  AttentionInput in = randomQkv(4, 400, 8, 3);
  AttentionSpec spec;
  spec.heads = 4;
  spec.dModel = 32;
  spec.exec = ExecPath::Tiled;
  spec.mask = *Mask::parse("causal");
  AnalysisOptions exact, sampled;
  sampled.divergence.mode = DivergenceOptions::Mode::Sampled;
  sampled.divergence.sampleRows = 50;
  auto e = analyzeAttentionStreamed(in, spec, exact);
  auto s = analyzeAttentionStreamed(in, spec, sampled);
  ASSERT_TRUE(e && s);
  EXPECT_FALSE(e->analysis.divergenceInfo.sampled);
  ASSERT_TRUE(s->analysis.divergenceInfo.sampled);
  EXPECT_EQ(s->analysis.divergenceInfo.rowsUsed, 50);
  const Mat diff = (s->analysis.headDivergence - e->analysis.headDivergence).cwiseAbs();
  EXPECT_LE(diff.maxCoeff(), s->analysis.divergenceInfo.bound);
  // Row measures do not depend on the divergence mode.
  EXPECT_MATRIX_NEAR(s->analysis.heads[2].perRow.entropy, e->analysis.heads[2].perRow.entropy, 0.0);
  EXPECT_MATRIX_NEAR(s->analysis.heads[2].perRow.coverageK, e->analysis.heads[2].perRow.coverageK, 0.0);
}

// Seeded heads (H query heads over KV key/value heads, GQA), a bias, and what the streamed tests
// run them under: no mask (the bias), causal, a custom mask with two fully masked rows (5 and 150);
// the exact, sampled and no head divergence (each a different split of the rows into items).
struct HeadsUnderMasks {
  int n, H, KV;
  std::vector<Mat> q, k, v;
  Mat bias;
  std::optional<Mask> causal, custom;
  AnalysisOptions exact, sampled, none;

  HeadsUnderMasks(int rows, int dk, int dv, int heads, int kvHeads, uint64_t seed)
      : n(rows), H(heads), KV(kvHeads) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> g(0.0f, 1.0f);
    const auto random = [&](int r, int c) {
      Mat m(r, c);
      for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = g(rng);
      return m;
    };
    for (int h = 0; h < H; ++h) q.push_back(random(n, dk));
    for (int h = 0; h < KV; ++h) {
      k.push_back(random(n, dk));
      v.push_back(random(n, dv));
    }
    bias = random(n, n);
    std::vector<uint8_t> keep(static_cast<size_t>(n) * n);
    for (auto& c : keep) c = (rng() % 3) != 0;
    for (int i : {5, 150}) std::fill_n(keep.begin() + static_cast<std::ptrdiff_t>(i) * n, n, uint8_t{0});
    causal = *Mask::causal().bind(n, n, {});
    custom = *Mask::custom(keep, n, n).bind(n, n, {});
    sampled.divergence.mode = DivergenceOptions::Mode::Sampled;
    sampled.divergence.sampleRows = 40;
    none.headSimilarity = false;
  }
  std::vector<const Mask*> masks() const { return {nullptr, &*causal, &*custom}; }
  std::vector<const AnalysisOptions*> options() const { return {&exact, &sampled, &none}; }
  /// Scale 0.25; the bias only where there is no mask.
  std::vector<HeadView> views(const Mask* mask) const {
    std::vector<HeadView> out(static_cast<size_t>(H));
    for (int h = 0; h < H; ++h)
      out[h] = HeadView{&q[h], &k[h / (H / KV)], &v[h / (H / KV)], 0.25f, mask ? nullptr : &bias, mask};
    return out;
  }
  std::string trace(const Mask* mask, const AnalysisOptions* opt) const {
    return fmt::format("mask {}, options {}", mask ? mask->spec() : "none (bias)",
                       opt == &exact     ? "exact"
                       : opt == &sampled ? "sampled"
                                         : "no divergence");
  }
};

// The heads' outputs the analysis writes beside its measures (a streamed forward's P V) against
// a double softmax of scale q k^T + bias under the mask times v, written out here; for every
// way the rows are split into items (all heads of a block with the exact divergence, head-major
// with a sampled one, head-major without divergence); the measures unchanged by asking for them.
TEST(StreamedAnalysis, OutputsEqualTheSoftmaxTimesValues) {
  const int n = 300, dv = 8, H = 4;
  const HeadsUnderMasks c(n, 16, dv, H, 2, 11);
  for (const Mask* mask : c.masks()) {
    const std::vector<HeadView> views = c.views(mask);
    Mat want(n, H * dv);
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < n; ++i) {
        std::vector<double> s(n, -std::numeric_limits<double>::infinity());
        double mx = -std::numeric_limits<double>::infinity();
        for (int j = 0; j < n; ++j) {
          if (mask && !mask->allowed(i, j)) continue;
          s[j] = 0.25 * views[h].q->row(i).cast<double>().dot(views[h].k->row(j).cast<double>()) +
                 (mask ? 0.0 : c.bias(i, j));
          mx = std::max(mx, s[j]);
        }
        Eigen::VectorXd o = Eigen::VectorXd::Zero(dv);
        double z = 0;
        for (int j = 0; j < n && std::isfinite(mx); ++j) {
          if (!std::isfinite(s[j])) continue;
          const double e = std::exp(s[j] - mx);
          z += e;
          o += e * views[h].v->row(j).cast<double>().transpose();
        }
        want.block(i, h * dv, 1, dv) = (z > 0 ? o / z : o).cast<float>().transpose();
      }
    for (const AnalysisOptions* opt : c.options()) {
      SCOPED_TRACE(c.trace(mask, opt));
      Mat got = Mat::Constant(n, H * dv, std::numeric_limits<float>::quiet_NaN());
      const Analysis with = analyzeStreamed(views, {}, *opt, nullptr, &got);
      const Analysis without = analyzeStreamed(views, {}, *opt);
      EXPECT_MATRIX_NEAR(got, want, 2e-5);
      for (int h = 0; h < H; ++h) {
        EXPECT_MATRIX_NEAR(with.heads[h].perRow.entropy, without.heads[h].perRow.entropy, 0.0);
        EXPECT_MATRIX_NEAR(with.heads[h].perRow.coverageK, without.heads[h].perRow.coverageK, 0.0);
      }
      EXPECT_MATRIX_NEAR(with.headDivergence, without.headDivergence, 0.0);
    }
  }
}

TEST(StreamedAnalysis, HeadSumIsTheSumOfEveryHeadsSoftmaxRows) {
  // The rollout's input from a pass that keeps no map: sum_h softmax(q_h k_h^T * scale + bias), the
  // rows a block of all heads at a time. Causal, bias, and a mask with fully masked rows (zero rows).
  const int n = 260, H = 4;
  const HeadsUnderMasks c(n, 16, 8, H, 2, 12);
  for (const Mask* mask : c.masks()) {
    const std::vector<HeadView> views = c.views(mask);
    Eigen::MatrixXd want = Eigen::MatrixXd::Zero(n, n);
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < n; ++i) {
        Eigen::VectorXd s = Eigen::VectorXd::Constant(n, -std::numeric_limits<double>::infinity());
        for (int j = 0; j < n; ++j)
          if (!mask || mask->allowed(i, j))
            s(j) = 0.25 * views[h].q->row(i).cast<double>().dot(views[h].k->row(j).cast<double>()) +
                   (mask ? 0.0 : c.bias(i, j));
        const double mx = s.maxCoeff();
        if (!std::isfinite(mx)) continue;  // every key masked: a zero row
        const Eigen::VectorXd e = (s.array() - mx).exp().matrix();
        want.row(i) += (e / e.sum()).transpose();
      }
    for (const AnalysisOptions* opt : c.options()) {
      SCOPED_TRACE(c.trace(mask, opt));
      Mat sum = Mat::Constant(3, 3, std::numeric_limits<float>::quiet_NaN());  // resized and zeroed
      const Analysis with = analyzeStreamed(views, {}, *opt, nullptr, nullptr, &sum);
      const Analysis without = analyzeStreamed(views, {}, *opt);
      EXPECT_MATRIX_NEAR(sum, Mat(want.cast<float>()), 2e-6);
      for (int h = 0; h < H; ++h) {  // the block layout changes no measure
        EXPECT_MATRIX_NEAR(with.heads[h].perRow.entropy, without.heads[h].perRow.entropy, 0.0);
        EXPECT_NEAR(with.heads[h].meanDistance, without.heads[h].meanDistance, 1e-9);
        EXPECT_NEAR(with.heads[h].coverageK, without.heads[h].coverageK, 1e-9);
      }
      EXPECT_MATRIX_NEAR(with.headDivergence, without.headDivergence, 1e-9);
    }
  }
}

TEST(StreamedAnalysis, OnlyExactKernelPathsWithoutPatternMasksStream) {
  AttentionSpec spec;
  spec.exec = ExecPath::Auto;
  EXPECT_FALSE(canStreamAnalysis(spec, 100, 100));  // auto picks naive this small
  EXPECT_TRUE(canStreamAnalysis(spec, 2048, 2048));
  spec.mask = *Mask::parse("causal+window:4");
  EXPECT_FALSE(canStreamAnalysis(spec, 2048, 2048));  // pattern mask: vs dense needs the weights
  spec.mask = *Mask::parse("causal");
  spec.exec = ExecPath::Performer;
  EXPECT_FALSE(canStreamAnalysis(spec, 2048, 2048));
  spec.exec = ExecPath::Tiled;
  spec.mechanism = Mechanism::Additive;
  EXPECT_FALSE(canStreamAnalysis(spec, 2048, 2048));  // the kernels do not cover it
}

}  // namespace
}  // namespace attn
