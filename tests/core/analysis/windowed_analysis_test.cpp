// A sequence measured a window at a time (WindowedAnalysis) against the whole-sequence
// analysis of the stitched maps: each row's weights placed at its window's keys in an N x N
// map, analyzed by analyzeHeads (row_measures.h's definitions), and the heads' outputs
// against a double softmax times the window's values.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "attn/analysis/streamed_analysis.h"
#include "attn/attn.h"
#include "matrix_matchers.h"

namespace attn {
namespace {

struct WindowHeads {
  std::vector<Mat> q, k, v;
  std::vector<HeadView> views;
};

WindowHeads randomWindow(int heads, int w, int dk, int dv, std::mt19937_64& rng, const Mask& mask) {
  std::normal_distribution<float> g(0.0f, 1.0f);
  const auto random = [&](int rows, int cols) {
    Mat m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = g(rng);
    return m;
  };
  WindowHeads wh;
  for (int h = 0; h < heads; ++h) {
    wh.q.push_back(random(w, dk));
    wh.k.push_back(random(w, dk));
    wh.v.push_back(random(w, dv));
  }
  for (int h = 0; h < heads; ++h)
    wh.views.push_back(HeadView{&wh.q[h], &wh.k[h], &wh.v[h], 0.5f, nullptr, &mask});
  return wh;
}

// Row i of one head in double: causal softmax of scale q_i k_j over j <= i, and its output.
Eigen::VectorXd softmaxRow(const HeadView& hv, int i) {
  Eigen::VectorXd p = Eigen::VectorXd::Zero(hv.k->rows());
  for (int j = 0; j <= i; ++j) p[j] = hv.scale * hv.q->row(i).cast<double>().dot(hv.k->row(j).cast<double>());
  const double mx = p.head(i + 1).maxCoeff();
  for (int j = 0; j <= i; ++j) p[j] = std::exp(p[j] - mx);
  return p / p.sum();
}

TEST(WindowedAnalysis, EqualsTheStitchedMapsAnalysis) {
  const int n = 200, w = 64, heads = 3, dk = 8, dv = 4;
  // Windows of 64 keys every 32 tokens, the last one ending at the sequence's end; each
  // measures the rows no earlier window did (firstRow: the first of them, in the window).
  const std::vector<std::pair<int, int>> windows = {{0, 0},   {32, 32},  {64, 32},
                                                    {96, 32}, {128, 32}, {136, 56}};
  std::vector<std::string> tokens;
  for (int i = 0; i < n; ++i) tokens.push_back(i % 9 == 4 ? "." : fmt::format("t{}", i));
  const Mask causal = *Mask::causal().bind(w, w, {});
  std::mt19937_64 rng(5);
  for (bool sampled : {false, true}) {
    SCOPED_TRACE(sampled ? "sampled divergence" : "exact divergence");
    AnalysisOptions opt;
    if (sampled) {
      opt.divergence.mode = DivergenceOptions::Mode::Sampled;
      opt.divergence.sampleRows = n;  // every row: the same mean as the exact pass
    }
    WindowedAnalysis windowed(heads, n, w, opt);
    std::vector<Mat> stitched(heads, Mat::Zero(n, n));
    std::vector<double> firstShare(heads, 0.0);
    for (const auto& [start, firstRow] : windows) {
      WindowHeads wh = randomWindow(heads, w, dk, dv, rng, causal);
      const std::vector<std::string> keyTokens(tokens.begin() + start, tokens.begin() + start + w);
      Mat out = Mat::Constant(w, heads * dv, std::numeric_limits<float>::quiet_NaN());
      windowed.add(wh.views, keyTokens, start, firstRow, &out);
      for (int h = 0; h < heads; ++h)
        for (int i = 0; i < w; ++i) {
          const Eigen::VectorXd p = softmaxRow(wh.views[h], i);
          const Eigen::VectorXd o = wh.v[h].cast<double>().transpose() * p;
          for (int c = 0; c < dv; ++c)
            EXPECT_NEAR(out(i, h * dv + c), o[c], 2e-5) << "window " << start << " row " << i;
          if (i < firstRow) continue;
          stitched[h].block(start + i, start, 1, w) = p.transpose().cast<float>();
          firstShare[h] += p[0] / n;
        }
    }
    const Analysis got = windowed.finish();
    AnalysisOptions refOpt;
    const Analysis want = analyzeHeads(stitched, tokens, {}, refOpt);
    ASSERT_EQ(got.heads.size(), want.heads.size());
    EXPECT_EQ(got.nq, n);
    EXPECT_EQ(got.nk, w);
    for (int h = 0; h < heads; ++h) {
      const HeadAnalysis &a = got.heads[h], &b = want.heads[h];
      EXPECT_MATRIX_NEAR(a.perRow.entropy, b.perRow.entropy, 1e-5);
      EXPECT_MATRIX_NEAR(a.perRow.maxWeight, b.perRow.maxWeight, 1e-6);
      EXPECT_MATRIX_NEAR(a.perRow.meanDistance, b.perRow.meanDistance, 1e-4);
      EXPECT_MATRIX_NEAR(a.perRow.coverageK, b.perRow.coverageK, 0.0);
      EXPECT_EQ(a.perRow.keptKeys, b.perRow.keptKeys);
      EXPECT_NEAR(a.entropyMean, b.entropyMean, 1e-6);
      EXPECT_NEAR(a.meanDistance, b.meanDistance, 1e-5);
      EXPECT_NEAR(a.shares.diagonal, b.shares.diagonal, 1e-6);
      EXPECT_NEAR(a.shares.previous, b.shares.previous, 1e-6);
      EXPECT_NEAR(a.shares.separator, b.shares.separator, 1e-6);
      EXPECT_EQ(a.shares.separatorKeys, b.shares.separatorKeys);
      // The first-token share is of each row's own window's first key.
      EXPECT_NEAR(a.shares.first, firstShare[h], 1e-6);
      for (int offset = -(n - 1); offset < w; ++offset)
        EXPECT_NEAR(a.offsets.at(offset), b.offsets.at(offset), 1e-6) << "offset " << offset;
    }
    EXPECT_MATRIX_NEAR(got.headDivergence, want.headDivergence, 1e-6);
  }
}

}  // namespace
}  // namespace attn
