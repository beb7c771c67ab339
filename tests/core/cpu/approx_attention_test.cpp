// Performer FAVOR+, elu(x)+1 linear attention and Linformer: their maps are
// proper distributions, the linear-time outputs equal the materialized map
// times V, and the error against exact softmax shrinks as features/slots grow.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "attn/attn.h"
#include "attn/cpu/linear_attention.h"
#include "attn/engine/exec_path.h"
#include "attn/engine/random.h"
#include "matrix_matchers.h"

namespace attn {
namespace {

Mat gaussian(int rows, int cols, uint64_t seed, double sd = 1.0) {
  SeededRng rng(seed);
  Mat m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = static_cast<float>(rng.normal() * sd);
  return m;
}

AttentionInput projectedInput(int n, int dk, uint64_t seed, double sd = 1.0) {
  AttentionInput in;
  in.q = {gaussian(n, dk, seed + 1, sd)};
  in.k = {gaussian(n, dk, seed + 2, sd)};
  in.v = {gaussian(n, dk, seed + 3)};
  return in;
}

AttentionResult run(const AttentionInput& in, AttentionSpec spec) {
  auto res = runAttention(in, spec);
  EXPECT_TRUE(res.ok()) << (res.ok() ? "" : res.error().message);
  return std::move(res).value();
}

void expectDistributionRows(const Mat& w, bool causal) {
  for (Eigen::Index i = 0; i < w.rows(); ++i) {
    EXPECT_NEAR(w.row(i).cast<double>().sum(), 1.0, 1e-5) << "row " << i;
    EXPECT_GE(w.row(i).minCoeff(), 0.0f) << "row " << i;
    if (causal) {
      for (Eigen::Index j = i + 1; j < w.cols(); ++j) EXPECT_EQ(w(i, j), 0.0f);
    }
  }
}

TEST(OrthogonalRandomFeatures, BlocksAreOrthogonalAndSeeded) {
  const Mat w = orthogonalRandomFeatures(10, 4, 3);  // blocks of 4, 4, 2 rows
  ASSERT_EQ(w.rows(), 10);
  for (int b = 0; b < 2; ++b) {
    const Mat blk = w.middleRows(4 * b, 4);
    const Mat g = blk * blk.transpose();
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        if (i != j) {
          EXPECT_NEAR(g(i, j), 0.0f, 1e-4f * std::sqrt(g(i, i) * g(j, j)));
        }
  }
  EXPECT_MATRIX_NEAR(w, orthogonalRandomFeatures(10, 4, 3), 0.0);
  EXPECT_FALSE(w.isApprox(orthogonalRandomFeatures(10, 4, 4)));
}

TEST(LinearAttention, PerformerAndEluMapsAreDistributionsAndMatchTheLinearForm) {
  const auto in = projectedInput(23, 6, 11);
  for (auto path : {ExecPath::Performer, ExecPath::LinearElu})
    for (bool causal : {false, true}) {
      SCOPED_TRACE(fmt::format("{} causal={}", execPathName(path), causal));
      AttentionSpec spec;
      spec.exec = path;
      spec.randomFeatures = 64;
      if (causal) spec.mask = Mask::causal();
      const auto res = run(in, spec);
      EXPECT_EQ(res.execUsed, execPathName(path));
      const auto& h = res.heads[0];
      ASSERT_EQ(h.weights.rows(), 23);
      ASSERT_EQ(h.weights.cols(), 23);
      expectDistributionRows(h.weights, causal);
      // The O(N) output (running sums when causal) equals the viewed map times V.
      EXPECT_MATRIX_NEAR(h.output, Mat(h.weights * h.v), 1e-4);
      ASSERT_TRUE(h.approxError.has_value());
      EXPECT_TRUE(std::isfinite(h.approxError->weightsFrobenius));
      EXPECT_GT(h.approxError->meanRowKl, 0.0);
    }
}

TEST(LinearAttention, PerformerErrorShrinksAsFeaturesGrow) {
  // Averaged over 4 heads (each with its own seeded features) so that one
  // lucky draw at few features cannot hide the 1/sqrt(m) trend.
  AttentionInput in;
  for (int h = 0; h < 4; ++h) {
    in.q.push_back(gaussian(16, 8, 100 + h, 0.8));
    in.k.push_back(gaussian(16, 8, 200 + h, 0.8));
    in.v.push_back(gaussian(16, 8, 300 + h));
  }
  for (bool causal : {false, true}) {
    double previousFro = 1e9, previousKl = 1e9;
    for (int m : {8, 256, 8192}) {
      AttentionSpec spec;
      spec.exec = ExecPath::Performer;
      spec.randomFeatures = m;
      if (causal) spec.mask = Mask::causal();
      double fro = 0, kl = 0;
      for (const auto& h : run(in, spec).heads) {
        fro += h.approxError->weightsFrobenius / 4;
        kl += h.approxError->meanRowKl / 4;
      }
      SCOPED_TRACE(fmt::format("m={} causal={} fro={} kl={}", m, causal, fro, kl));
      EXPECT_LT(fro, previousFro);
      EXPECT_LT(kl, previousKl);
      previousFro = fro;
      previousKl = kl;
    }
    EXPECT_LT(previousKl, 0.02);  // 8192 orthogonal features: close to softmax
  }
}

TEST(Linformer, MapIsNByKWithSlotLabelsAndErrorShrinksWithSlots) {
  const auto in = projectedInput(24, 8, 5);
  double previous = 1e9;
  for (int k : {2, 8, 32}) {
    AttentionSpec spec;
    spec.exec = ExecPath::Linformer;
    spec.linformerSlots = k;
    const auto res = run(in, spec);
    const auto& h = res.heads[0];
    ASSERT_EQ(h.weights.rows(), 24);
    ASSERT_EQ(h.weights.cols(), k);
    expectDistributionRows(h.weights, false);
    ASSERT_EQ(res.keyTokens.size(), static_cast<size_t>(k));
    EXPECT_EQ(res.keyTokens[0], "slot 0");
    const double err = h.approxError->outputRelError;
    EXPECT_TRUE(std::isnan(h.approxError->meanRowKl));
    EXPECT_LT(err, previous) << "k=" << k;
    previous = err;
  }
}

TEST(ApproximatePaths, RejectWhatTheyCannotComputeWithClearErrors) {
  const auto in = projectedInput(8, 4, 1);
  AttentionSpec spec;
  spec.exec = ExecPath::Linformer;
  spec.mask = Mask::causal();
  auto res = runAttention(in, spec);
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.error().message.find("linformer"), std::string::npos);
  EXPECT_NE(res.error().message.find("causal"), std::string::npos);
}

}  // namespace
}  // namespace attn
