// Compare mode's numbers on hand-made weight rows.
#include <gtest/gtest.h>

#include <cmath>

#include "attn/teaching/compare.h"
#include "attn/metrics.h"
#include "matrix_matchers.h"

namespace attn {
namespace {

HeadResult head(std::initializer_list<float> w) {
  HeadResult h;
  h.weights.resize(2, 2);
  auto it = w.begin();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) h.weights(i, j) = *it++;
  h.entropy = rowEntropy(h.weights);
  return h;
}

TEST(Compare, DifferenceAndDeltasByHand) {
  const HeadResult a = head({1, 0, 0.5f, 0.5f});
  const HeadResult b = head({0, 1, 0.5f, 0.5f});
  auto s = compareHeads(a, b);
  ASSERT_TRUE(s.ok()) << s.error().message;
  Mat d(2, 2);
  d << -1, 1, 0, 0;
  EXPECT_MATRIX_NEAR(s->difference, d, 1e-7);
  EXPECT_FLOAT_EQ(s->maxAbsDiff, 1.0f);
  EXPECT_FLOAT_EQ(s->meanAbsDiff, 0.5f);
  // Row 0: one-hot vs the other one-hot: JS = log 2; row 1 identical: 0.
  EXPECT_NEAR(s->meanJsDivergence, 0.5 * std::log(2.0), 1e-6);
  // Entropies: A = [0, log 2], B = [0, log 2]: no delta.
  EXPECT_NEAR(s->entropyDelta(), 0.0f, 1e-7f);
  EXPECT_NEAR(s->entropyMeanA, 0.5 * std::log(2.0), 1e-6);
  // argmax: row 0 differs (0 vs 1), row 1 ties resolve to key 0 in both.
  EXPECT_FLOAT_EQ(s->argmaxAgreement, 0.5f);
  // A as exact: ||B - A||_F = sqrt(1 + 1); KL row 0 = 1 * log(1 / 1e-10) (B's zero floored), row 1 = 0.
  EXPECT_NEAR(s->frobenius, std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(s->meanRowKl, 0.5 * std::log(1e10), 1e-4);
}

TEST(Compare, ShapeMismatchIsNamed) {
  HeadResult a = head({1, 0, 0, 1});
  HeadResult b;
  b.weights = Mat::Ones(3, 2) / 2;
  auto s = compareHeads(a, b);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("differ in shape"), std::string::npos);
}

}  // namespace
}  // namespace attn
