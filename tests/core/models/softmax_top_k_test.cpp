// softmaxTopK, the next-token and masked-token predictions of every model: on
// logits log(1), log(2), log(2), log(4) the softmax is 1/9, 2/9, 2/9, 4/9 by hand,
// and the two tokens of probability 2/9 are a tie the smaller id wins.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "attn/models/nn_ops.h"

namespace attn::models {
namespace {

const std::vector<float> kTopKLogits{0.0f, std::log(2.0f), std::log(2.0f), std::log(4.0f)};

std::vector<int> topIds(const std::vector<TopToken>& top) {
  std::vector<int> out;
  for (const auto& t : top) out.push_back(t.id);
  return out;
}

TEST(SoftmaxTopK, MostProbableFirstTiesBySmallerId) {
  const auto top = softmaxTopK(kTopKLogits.data(), 4, 2);
  ASSERT_EQ(topIds(top), (std::vector<int>{3, 1}));
  EXPECT_NEAR(top[0].prob, 4.0 / 9.0, 1e-6);
  EXPECT_NEAR(top[1].prob, 2.0 / 9.0, 1e-6);
  EXPECT_TRUE(top[0].token.empty());
}

TEST(SoftmaxTopK, KPastTheVocabularyGivesEveryTokenOnce) {
  const auto top = softmaxTopK(kTopKLogits.data(), 4, 10);
  ASSERT_EQ(topIds(top), (std::vector<int>{3, 1, 2, 0}));
  const double expect[] = {4.0 / 9.0, 2.0 / 9.0, 2.0 / 9.0, 1.0 / 9.0};
  double sum = 0;
  for (size_t r = 0; r < top.size(); ++r) {
    EXPECT_NEAR(top[r].prob, expect[r], 1e-6) << "rank " << r;
    sum += top[r].prob;
  }
  EXPECT_NEAR(sum, 1.0, 1e-6);
}

TEST(SoftmaxTopK, LargeLogitsDoNotOverflow) {
  // exp(1000) overflows: the max is subtracted first, so this is softmax(0, -ln 3) = 3/4, 1/4.
  const std::vector<float> big{1000.0f, 1000.0f - std::log(3.0f)};
  const auto top = softmaxTopK(big.data(), 2, 2);
  ASSERT_EQ(topIds(top), (std::vector<int>{0, 1}));
  EXPECT_NEAR(top[0].prob, 0.75, 1e-4);
  EXPECT_NEAR(top[1].prob, 0.25, 1e-4);
}

TEST(SoftmaxTopK, ZeroOrNegativeKGivesNothing) {
  EXPECT_TRUE(softmaxTopK(kTopKLogits.data(), 4, 0).empty());
  EXPECT_TRUE(softmaxTopK(kTopKLogits.data(), 4, -3).empty());
}

}  // namespace
}  // namespace attn::models
