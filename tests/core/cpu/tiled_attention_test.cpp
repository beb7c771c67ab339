// Tiled (FlashAttention-style) and sparse execution against the naive,
// materialized path: same weights, outputs and entropy within 1e-5, for every
// mask family the build knows, N not a multiple of the block size, and N = 1.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "attn/attn.h"
#include "attn/cpu/tiled_attention.h"
#include "attn/engine/exec_path.h"
#include "attn/engine/random.h"
#include "attn/teaching/tiling_view.h"
#include "matrix_matchers.h"

namespace attn {
namespace {

Mat tiledGaussian(int rows, int cols, uint64_t seed, double sd = 1.0) {
  SeededRng rng(seed);
  Mat m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = static_cast<float>(rng.normal() * sd);
  return m;
}

AttentionInput projectedInput(int heads, int nq, int nk, int dk, uint64_t seed) {
  AttentionInput in;
  for (int h = 0; h < heads; ++h) {
    // sd 2 gives peaked rows, so the online max really moves between tiles.
    in.q.push_back(tiledGaussian(nq, dk, seed + 10 * h + 1, 2.0));
    in.k.push_back(tiledGaussian(nk, dk, seed + 10 * h + 2, 2.0));
    in.v.push_back(tiledGaussian(nk, dk + 1, seed + 10 * h + 3));
  }
  return in;
}

// Every mask spec of docs/masks-and-positions.md that this build parses; families not yet
// implemented are skipped rather than failed.
std::vector<Mask> maskFamilies() {
  std::vector<Mask> masks;
  for (const char* s : {"none", "causal", "window:3", "causal+window:2", "dilated:2,2", "block:4",
                        "global:0,5+window:2", "random:0.3,7", "padding:5", "causal+padding:6",
                        "window:40", "block:50+global:3"})
    if (auto m = Mask::parse(s)) masks.push_back(std::move(m).value());
  return masks;
}

AttentionResult run(const AttentionInput& in, AttentionSpec spec, ExecPath path) {
  spec.exec = path;
  auto res = runAttention(in, spec);
  EXPECT_TRUE(res.ok()) << (res.ok() ? "" : res.error().message);
  return std::move(res).value();
}

void expectSameAttention(const AttentionResult& a, const AttentionResult& b) {
  ASSERT_EQ(a.numHeads(), b.numHeads());
  for (int h = 0; h < a.numHeads(); ++h) {
    const auto &x = a.heads[h], &y = b.heads[h];
    EXPECT_MATRIX_NEAR(x.weights, y.weights, 1e-5);
    // The materialized map keeps its scaled logits on every path (masked cells too).
    if (x.weights.size() > 0 && y.weights.size() > 0) {
      EXPECT_MATRIX_NEAR(x.scaledLogits, y.scaledLogits, 1e-4);
    }
    EXPECT_MATRIX_NEAR(x.output, y.output, 1e-5);
    EXPECT_MATRIX_NEAR(x.entropy, y.entropy, 1e-5);
    EXPECT_EQ(x.fullyMaskedRows, y.fullyMaskedRows);
  }
}

TEST(TiledAttention, EqualsNaiveForEveryMechanismAndMaskFamily) {
  // 300 > the 256-row query block and not a multiple of it; 7 is below every block.
  for (int n : {300, 7}) {
    const auto in = projectedInput(2, n, n, 8, 99);
    for (auto name : allMechanisms())
      for (const auto& mask : maskFamilies()) {
        const Mechanism mech = *parseMechanism(name);
        SCOPED_TRACE(fmt::format("N={} mechanism={} mask={}", n, mechanismName(mech), mask.spec()));
        AttentionSpec spec;
        spec.mechanism = mech;
        spec.mask = mask;
        spec.temperature = 1.3f;
        const auto naive = run(in, spec, ExecPath::Naive);
        const auto tiled = run(in, spec, ExecPath::Tiled);
        const auto sparse = run(in, spec, ExecPath::Sparse);
        if (!tiledSupports(mech)) {  // additive: runs naive, and says so
          EXPECT_EQ(tiled.execUsed, "naive");
          EXPECT_FALSE(tiled.warnings.empty());
          continue;
        }
        EXPECT_EQ(tiled.execUsed, "tiled");
        EXPECT_EQ(sparse.execUsed, "sparse");
        expectSameAttention(tiled, naive);
        expectSameAttention(sparse, naive);
      }
  }
}

TEST(TiledAttention, SingleTokenAndCrossAttention) {
  for (auto [nq, nk] : {std::pair{1, 1}, {1, 9}, {9, 1}, {13, 29}}) {
    const auto in = projectedInput(1, nq, nk, 4, 5);
    for (const auto& mask : maskFamilies()) {
      AttentionSpec spec;
      spec.mask = mask;
      if (!spec.mask.validate(nq, nk)) continue;
      SCOPED_TRACE(fmt::format("{}x{} mask={}", nq, nk, mask.spec()));
      expectSameAttention(run(in, spec, ExecPath::Tiled), run(in, spec, ExecPath::Naive));
    }
  }
  // N = 1: the only weight is 1, the entropy 0, the output the value row.
  const auto one = run(projectedInput(1, 1, 1, 4, 5), AttentionSpec{}, ExecPath::Tiled);
  EXPECT_EQ(one.heads[0].weights(0, 0), 1.0f);
  EXPECT_EQ(one.heads[0].entropy[0], 0.0f);
}

TEST(TiledAttention, CustomBitmapMaskEqualsNaive) {
  // A bitmap mask (the 'mask' array of an input file): a band with holes and
  // row 4 fully masked, over N = 300 (tiles of every state, ragged edges).
  const int n = 300;
  std::vector<uint8_t> keep(static_cast<size_t>(n) * n, 0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) keep[static_cast<size_t>(i) * n + j] = i != 4 && std::abs(i - j) < 70 && (i + j) % 7 != 0;
  AttentionSpec spec;
  spec.mask = Mask::custom(keep, n, n);
  const auto in = projectedInput(2, n, n, 8, 17);
  const auto naive = run(in, spec, ExecPath::Naive);
  EXPECT_EQ(naive.heads[0].fullyMaskedRows, std::vector<int>{4});
  expectSameAttention(run(in, spec, ExecPath::Tiled), naive);
  expectSameAttention(run(in, spec, ExecPath::Sparse), naive);
}

// The kernels with tiny tiles: many query and key tiles, ragged edges, and a
// causal mask whose tiles are all-masked, all-allowed and mixed.
TEST(TiledAttention, SmallTilesMetricsOnlyPathMatchesNaive) {
  const int n = 37, dk = 5;
  const Mat q = tiledGaussian(n, dk, 1, 2.0), k = tiledGaussian(n, dk, 2, 2.0), v = tiledGaussian(n, 3, 3);
  for (const auto& mask : maskFamilies()) {
    SCOPED_TRACE(mask.spec());
    AttentionInput in;
    in.q = {q};
    in.k = {k};
    in.v = {v};
    AttentionSpec spec;
    spec.mask = mask;
    const auto naive = run(in, spec, ExecPath::Naive);
    HeadView view{&q, &k, &v, 1.0f / std::sqrt(static_cast<float>(dk)), nullptr, &spec.mask};
    for (TileConfig cfg : {TileConfig{8, 16}, TileConfig{5, 3}, TileConfig{64, 64}}) {
      TileScratch scratch;
      Mat out, weights, out2;
      RowStats st, st2;
      flashAttention(view, cfg, scratch, out, st);
      EXPECT_MATRIX_NEAR(out, naive.heads[0].output, 1e-5);
      EXPECT_MATRIX_NEAR(st.entropy, naive.heads[0].entropy, 1e-5);
      EXPECT_EQ(st.fullyMaskedRows, naive.heads[0].fullyMaskedRows);
      blockedAttentionWithWeights(view, cfg, weights, out2, st2, 2);
      EXPECT_MATRIX_NEAR(weights, naive.heads[0].weights, 1e-5);
      EXPECT_MATRIX_NEAR(out2, naive.heads[0].output, 1e-5);
      EXPECT_MATRIX_NEAR(st2.max, st.max, 1e-6);
    }
  }
}

TEST(TiledAttention, FullyMaskedRowsGiveZerosNotNaN) {
  // A logit bias of -inf on every key of row 0 masks the whole row: zero
  // weights, zero output, entropy 0, flagged; the other rows are untouched.
  const Mat q = tiledGaussian(5, 3, 1), k = tiledGaussian(5, 3, 2), v = tiledGaussian(5, 2, 3);
  Mat bias = Mat::Zero(5, 5);
  bias.row(0).setConstant(-std::numeric_limits<float>::infinity());
  HeadView view{&q, &k, &v, 0.5f, &bias, nullptr};
  for (TileConfig cfg : {TileConfig{2, 2}, TileConfig{}}) {
    TileScratch scratch;
    Mat out, weights, out2;
    RowStats st, st2;
    flashAttention(view, cfg, scratch, out, st);
    blockedAttentionWithWeights(view, cfg, weights, out2, st2);
    EXPECT_EQ(st.fullyMaskedRows, std::vector<int>{0});
    EXPECT_EQ(st2.fullyMaskedRows, std::vector<int>{0});
    EXPECT_TRUE(out.allFinite() && out2.allFinite() && weights.allFinite());
    EXPECT_EQ(out.row(0).norm(), 0.0f);
    EXPECT_EQ(weights.row(0).norm(), 0.0f);
    EXPECT_EQ(st.entropy[0], 0.0f);
    for (int i = 1; i < 5; ++i) EXPECT_NEAR(weights.row(i).sum(), 1.0f, 1e-6f);
  }
}

TEST(TiledAttention, MetricsOnlyHeadsKeepNoWeights) {
  const auto in = projectedInput(3, 40, 40, 4, 3);
  AttentionSpec spec;
  spec.weightsHead = 1;  // only the head on screen materializes its map
  const auto tiled = run(in, spec, ExecPath::Tiled);
  const auto naive = run(in, spec, ExecPath::Naive);
  EXPECT_EQ(tiled.heads[0].weights.size(), 0);
  EXPECT_EQ(tiled.heads[2].weights.size(), 0);
  EXPECT_MATRIX_NEAR(tiled.heads[1].weights, naive.heads[1].weights, 1e-5);
  for (int h = 0; h < 3; ++h) {
    EXPECT_MATRIX_NEAR(tiled.heads[h].output, naive.heads[h].output, 1e-5);
    EXPECT_MATRIX_NEAR(tiled.heads[h].entropy, naive.heads[h].entropy, 1e-5);
  }
  EXPECT_EQ(tiled.nq(), 40);
}

TEST(TiledAttention, OnlineEntropyMatchesHandComputedValue) {
  // Logits [0, ln 3] -> weights [1/4, 3/4], H = 0.5623351446 (as in the engine
  // slice test), here split across two key tiles of one key each so that the
  // running max moves from 0 to ln 3 and l, t are rescaled once.
  Mat q(1, 1), k(2, 1), v = Mat::Identity(2, 2);
  q << 1;
  k << 0, std::log(3.0f);
  HeadView view{&q, &k, &v, 1.0f, nullptr, nullptr};
  TileScratch scratch;
  Mat out;
  RowStats st;
  flashAttention(view, TileConfig{1, 1}, scratch, out, st);
  EXPECT_NEAR(st.entropy[0], 0.5623351446, 1e-6);
  EXPECT_NEAR(out(0, 0), 0.25, 1e-6);
  EXPECT_NEAR(out(0, 1), 0.75, 1e-6);
  const RowTrace tr = traceRow(view, TileConfig{1, 1}, 0);
  ASSERT_EQ(tr.steps.size(), 2u);
  EXPECT_DOUBLE_EQ(tr.steps[0].runningMax, 0.0);
  EXPECT_NEAR(tr.steps[0].runningSum, 1.0, 1e-12);
  EXPECT_NEAR(tr.steps[1].runningMax, std::log(3.0), 1e-6);
  EXPECT_NEAR(tr.steps[1].rescale, 1.0 / 3.0, 1e-6);      // e^(0 - ln 3)
  EXPECT_NEAR(tr.steps[1].runningSum, 4.0 / 3.0, 1e-6);   // 1/3 + 1
  EXPECT_NEAR(tr.finalEntropy, 0.5623351446, 1e-6);
}

TEST(TiledAttention, BlockScheduleSkipsMaskedTiles) {
  const BlockSchedule none = blockSchedule(Mask(), 10, 10, TileConfig{4, 4});
  EXPECT_EQ(none.numQueryBlocks, 3);
  EXPECT_EQ(none.computedTiles(), 9);
  const BlockSchedule causal = blockSchedule(Mask::causal(), 10, 10, TileConfig{4, 4});
  // Lower triangle of 3x3 tiles: 6 computed, the 3 above the diagonal skipped;
  // the diagonal tiles are mixed.
  EXPECT_EQ(causal.computedTiles(), 6);
  EXPECT_EQ(causal.states[0], BlockState::Mixed);
  EXPECT_EQ(causal.states[1], BlockState::AllMasked);
  EXPECT_EQ(causal.states[3], BlockState::AllAllowed);
}

TEST(TilingTeachingView, TraceEndsAtTheEngineEntropyForEveryDotMechanism) {
  // general and cosine trace the transformed rows (q W, unit rows), as the kernels do.
  for (Mechanism mech : {Mechanism::ScaledDot, Mechanism::General, Mechanism::Cosine}) {
    AttentionSpec spec;
    spec.heads = 2;
    spec.dModel = 16;
    spec.mechanism = mech;
    spec.mask = *Mask::parse("causal+window:5");
    auto res = runAttention(inputFromTokens(tokenizeWords("a b c d e f g h i j k"), 16, 3), spec);
    ASSERT_TRUE(res.ok());
    for (int row : {0, 6, 10}) {
      auto v = tilingTeachingView(*res, spec, 1, row, 3);
      ASSERT_TRUE(v.ok()) << v.error().message;
      SCOPED_TRACE(fmt::format("{} row {}", mechanismName(mech), row));
      EXPECT_NEAR(v->trace.finalEntropy, res->heads[1].entropy[row], 1e-5);
      EXPECT_EQ(v->trace.steps.size(), 4u);  // 11 keys in tiles of 3
      EXPECT_NEAR(v->trace.steps.back().runningMax, res->heads[1].maskedLogits.row(row).maxCoeff(), 1e-5);
      EXPECT_EQ(v->schedule.numQueryBlocks, 4);
    }
  }
  AttentionSpec small;
  small.heads = 2;
  small.dModel = 16;
  auto three = runAttention(inputFromTokens(tokenizeWords("a b c"), 16, 3), small);
  ASSERT_TRUE(three.ok()) << three.error().message;
  EXPECT_FALSE(tilingTeachingView(*three, small, 0, 3, 2).ok());  // no row 3
  EXPECT_FALSE(tilingTeachingView(*three, small, 7, 0, 2).ok());  // no head 8
  EXPECT_FALSE(tilingTeachingView(*three, small, 0, 0, 0).ok());  // no tile size 0
  small.mechanism = Mechanism::Additive;  // not a dot-product score: no tiled view
  auto additive = runAttention(inputFromTokens(tokenizeWords("a b c"), 16, 3), small);
  ASSERT_TRUE(additive.ok());
  EXPECT_FALSE(tilingTeachingView(*additive, small, 0, 0, 2).ok());
}

TEST(ExecPath, AutoPicksNaiveForSmallAndTiledForLargeAndSaysSo) {
  AttentionSpec spec;
  EXPECT_EQ(resolveExecPath(spec, 512, 512), ExecPath::Naive);
  EXPECT_EQ(resolveExecPath(spec, 513, 512), ExecPath::Tiled);
  const auto small = run(projectedInput(1, 6, 6, 2, 1), spec, ExecPath::Auto);
  EXPECT_EQ(small.execUsed, "naive");
  EXPECT_EQ(parseExecPath("linear_elu"), ExecPath::LinearElu);
  EXPECT_FALSE(parseExecPath("fast"));
  for (auto name : allExecPaths()) EXPECT_EQ(execPathName(*parseExecPath(name)), name);
}

}  // namespace
}  // namespace attn
