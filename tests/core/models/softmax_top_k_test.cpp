// softmaxTopK, the next-token and masked-token predictions of every model: on
// logits log(1), log(2), log(2), log(4) the softmax is 1/9, 2/9, 2/9, 4/9 by hand,
// and the two tokens of probability 2/9 are a tie the smaller id wins.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
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

TEST(SoftmaxTopK, AVocabularyOf128kMatchesAFullSortInDouble) {
  // Logits on a grid of 1/8 over a Llama 3-sized vocabulary: many ties, which the smaller id
  // wins; the reference sorts every id and sums the softmax in double.
  const int V = 128256;
  std::vector<float> l(static_cast<size_t>(V));
  uint64_t state = 12345;
  for (auto& x : l) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<float>(static_cast<int>(state >> 40) % 160 - 80) / 8.0f;
  }
  l[77] = l[128000] = 12.5f;  // the two best, tied: 77 first
  std::vector<int> order(static_cast<size_t>(V));
  for (int i = 0; i < V; ++i) order[static_cast<size_t>(i)] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return l[a] > l[b]; });
  double sum = 0;
  for (float x : l) sum += std::exp(static_cast<double>(x) - 12.5);
  // In one piece, and in uneven panels as the LM head delivers them: the max rises in the second
  // panel (ids 50 to 4145, past the first's 9.875 at most) and the tied best lies in two panels.
  RunningTopK panels(5);
  for (int v0 = 0, width = 50; v0 < V; v0 += width, width = 4096)
    panels.add(l.data() + v0, std::min(width, V - v0), v0);
  for (const auto& top : {softmaxTopK(l.data(), V, 5), panels.result()}) {
    ASSERT_EQ(top.size(), 5u);
    EXPECT_EQ(top[0].id, 77);
    EXPECT_EQ(top[1].id, 128000);
    for (size_t r = 0; r < top.size(); ++r) {
      EXPECT_EQ(top[r].id, order[r]) << "rank " << r;
      EXPECT_NEAR(top[r].prob, std::exp(static_cast<double>(l[static_cast<size_t>(order[r])]) - 12.5) / sum,
                  1e-6 * top[r].prob)
          << "rank " << r;
    }
  }
}

TEST(SoftmaxTopK, ZeroOrNegativeKGivesNothing) {
  EXPECT_TRUE(softmaxTopK(kTopKLogits.data(), 4, 0).empty());
  EXPECT_TRUE(softmaxTopK(kTopKLogits.data(), 4, -3).empty());
}

}  // namespace
}  // namespace attn::models
