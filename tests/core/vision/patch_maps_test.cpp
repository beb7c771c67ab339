// Patch maps of a vision transformer's attention on cases worked by hand:
// one query's row on the grid, DINO's 60% mass mask, rollout through two layers
// (Abnar & Zuidema 2020) and the mean attention distance in pixels.
#include "attn/vision/maps/patch_maps.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attn::vision {
namespace {

Mat rowsOf(int n, std::initializer_list<float> v) {
  Mat m(n, static_cast<int>(v.size()) / n);
  std::copy(v.begin(), v.end(), m.data());
  return m;
}

void expectMatNear(const Mat& a, const Mat& b, float tol) {
  ASSERT_EQ(a.rows(), b.rows());
  ASSERT_EQ(a.cols(), b.cols());
  for (Eigen::Index i = 0; i < a.size(); ++i) EXPECT_NEAR(a.data()[i], b.data()[i], tol) << "at " << i;
}

TEST(PatchMaps, QueryRowDropsThePrefixKeysAndLaysPatchesOutRowMajor) {
  Mat w = Mat::Identity(5, 5);
  w.row(0) << 0.2f, 0.1f, 0.4f, 0.2f, 0.1f;
  const PatchLayout l{1, 2, 2, 8};
  expectMatNear(queryPatchMap(w, 0, l), rowsOf(2, {0.1f, 0.4f, 0.2f, 0.1f}), 0);
  expectMatNear(queryPatchMap(w, 3, l), rowsOf(2, {0, 0, 1, 0}), 0);
  expectMatNear(normalizedToMax(rowsOf(2, {0.1f, 0.4f, 0.2f, 0.1f})), rowsOf(2, {0.25f, 1, 0.5f, 0.25f}),
                1e-7f);
  expectMatNear(normalizedToMax(Mat::Zero(2, 2)), Mat::Zero(2, 2), 0);
}

TEST(PatchMaps, MassMaskKeepsTheLargestPatchesHoldingTheFraction) {
  // Ascending 0.1, 0.2, 0.3, 0.4: cumulative 0.1, 0.3, 0.6, 1.0; kept where > 0.4.
  const Mat map = rowsOf(2, {0.1f, 0.4f, 0.2f, 0.3f});
  expectMatNear(massMask(map), rowsOf(2, {0, 1, 0, 1}), 0);
  // Unnormalised values give the same mask; 0.9 keeps all but the smallest.
  expectMatNear(massMask(map * 7.0f), rowsOf(2, {0, 1, 0, 1}), 0);
  expectMatNear(massMask(map, 0.9), rowsOf(2, {0, 1, 1, 1}), 0);
  // One patch with 70% of the mass is enough alone for 0.6.
  expectMatNear(massMask(rowsOf(2, {0.1f, 0.7f, 0.1f, 0.1f})), rowsOf(2, {0, 1, 0, 0}), 0);
  expectMatNear(massMask(Mat::Zero(2, 2)), Mat::Zero(2, 2), 0);
}

TEST(PatchMaps, RolloutThroughTwoLayersMatchesTheHandProduct) {
  // A'_l = 0.5 W_l + 0.5 I. Layer 1 row 0: [0.6, 0.2, 0.2]; layer 2 row 0: [0.5, 0.5, 0];
  // R_2 row 0 = 0.5 [0.6, 0.2, 0.2] + 0.5 [0, 1, 0] = [0.3, 0.6, 0.1].
  Mat w1 = Mat::Identity(3, 3), w2 = Mat::Identity(3, 3);
  w1.row(0) << 0.2f, 0.4f, 0.4f;
  w2.row(0) << 0.0f, 1.0f, 0.0f;
  const PatchLayout l{1, 1, 2, 4};
  auto maps = computeQueryMaps({{w1}, {w2}}, 0, l);
  ASSERT_TRUE(maps) << maps.error().message;
  ASSERT_EQ(maps->rollout.size(), 2u);
  expectMatNear(maps->rollout[0], rowsOf(1, {0.2f, 0.2f}), 1e-6f);
  expectMatNear(maps->rollout[1], rowsOf(1, {0.6f, 0.1f}), 1e-6f);
  expectMatNear(maps->headMap(1, 0), rowsOf(1, {1.0f, 0.0f}), 0);
  expectMatNear(maps->headMask(0, 0), rowsOf(1, {1, 1}), 0);  // a tie: both halves needed for 60%
}

TEST(PatchMaps, RolloutAveragesTheHeadsOfALayer) {
  // mean_h row 0 = [0.3, 0.3, 0.4]; A' row 0 = [0.65, 0.15, 0.2].
  Mat a = Mat::Identity(3, 3), b = Mat::Identity(3, 3);
  a.row(0) << 0.5f, 0.5f, 0.0f;
  b.row(0) << 0.1f, 0.1f, 0.8f;
  auto maps = computeQueryMaps({{a, b}}, 0, PatchLayout{1, 1, 2, 4});
  ASSERT_TRUE(maps) << maps.error().message;
  EXPECT_EQ(maps->heads, 2);
  expectMatNear(maps->rollout[0], rowsOf(1, {0.15f, 0.2f}), 1e-6f);
  expectMatNear(maps->headMap(0, 1), rowsOf(1, {0.1f, 0.8f}), 0);
  expectMatNear(maps->headMask(0, 1), rowsOf(1, {0, 1}), 0);
}

TEST(PatchMaps, MeanAttentionDistanceIsInPixelsBetweenPatchCentres) {
  // 1 x 2 grid of 8 px: patch 0 puts 0.4 on its neighbour (3.2 px), patch 1 all of it (8 px).
  Mat w(3, 3);
  w << 1, 0, 0, 0.2f, 0.4f, 0.4f, 0, 1, 0;
  EXPECT_NEAR(meanAttentionDistancePixels(w, PatchLayout{1, 1, 2, 8}), (3.2 + 8.0) / 2, 1e-6);
  // 2 x 2 grid, every patch on its diagonal opposite: 8 * sqrt(2).
  Mat d = Mat::Zero(4, 4);
  d(0, 3) = d(1, 2) = d(2, 1) = d(3, 0) = 1;
  EXPECT_NEAR(meanAttentionDistancePixels(d, PatchLayout{0, 2, 2, 8}), 8 * std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(meanAttentionDistancePixels(Mat::Identity(4, 4), PatchLayout{0, 2, 2, 8}), 0.0, 0);
}

TEST(PatchMaps, BadLayoutQueryOrCancelIsAnErrorNotACrash) {
  const Mat w = Mat::Identity(5, 5);
  auto wrong = computeQueryMaps({{w}}, 0, PatchLayout{1, 2, 3, 8});
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message.find("7 tokens, but the maps have 5"), std::string::npos)
      << wrong.error().message;
  auto far = computeQueryMaps({{w}}, 5, PatchLayout{1, 2, 2, 8});
  ASSERT_FALSE(far);
  EXPECT_NE(far.error().message.find("query 5 is out of range"), std::string::npos);
  auto ragged = computeQueryMaps({{w}, {w, w}}, 0, PatchLayout{1, 2, 2, 8});
  ASSERT_FALSE(ragged);
  EXPECT_NE(ragged.error().message.find("layer 2 has 2 heads"), std::string::npos);
  auto stopped = computeQueryMaps({{w}}, 0, PatchLayout{1, 2, 2, 8}, 0.6, [](double) { return false; });
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().message, "cancelled");
  EXPECT_FALSE(computeQueryMaps({}, 0, PatchLayout{1, 2, 2, 8}));
  EXPECT_FALSE(computeQueryMaps({{w}}, 0, PatchLayout{1, 2, 2, 8}, 0.0));
}

}  // namespace
}  // namespace attn::vision
