// The first vertical slice: tokens -> seeded embeddings -> multi-head scaled
// dot-product self-attention, with and without a causal mask.
#include <gtest/gtest.h>

#include <cmath>

#include "attn/attn.h"
#include "matrix_matchers.h"

namespace attn {
namespace {

AttentionResult runSentence(const std::string& text, const Mask& mask, uint64_t seed = 7) {
  AttentionSpec spec;
  spec.heads = 4;
  spec.dModel = 32;
  spec.seed = seed;
  spec.mask = mask;
  auto res = runAttention(inputFromTokens(tokenizeWords(text), spec.dModel, seed), spec);
  EXPECT_TRUE(res.ok()) << (res.ok() ? "" : res.error().message);
  return std::move(res).value();
}

TEST(Tokenizer, SplitsWhitespaceAndPunctuation) {
  EXPECT_EQ(tokenizeWords("Hello, world!  It's  me."),
            (std::vector<std::string>{"Hello", ",", "world", "!", "It", "'", "s", "me", "."}));
  EXPECT_TRUE(tokenizeWords("   ").empty());
}

TEST(EngineSlice, SoftmaxRowsSumToOne) {
  const auto res = runSentence("the cat sat on the mat .", Mask());
  ASSERT_EQ(res.numHeads(), 4);
  for (const auto& h : res.heads) {
    ASSERT_EQ(h.weights.rows(), 7);
    for (Eigen::Index i = 0; i < h.weights.rows(); ++i) {
      EXPECT_NEAR(h.weights.row(i).sum(), 1.0f, 1e-6f);
      EXPECT_GE(h.weights.row(i).minCoeff(), 0.0f);
    }
  }
}

TEST(EngineSlice, CausalCellsAreExactlyZero) {
  const auto res = runSentence("the cat sat on the mat .", Mask::causal());
  for (const auto& h : res.heads)
    for (Eigen::Index i = 0; i < h.weights.rows(); ++i) {
      for (Eigen::Index j = i + 1; j < h.weights.cols(); ++j) EXPECT_EQ(h.weights(i, j), 0.0f);
      EXPECT_NEAR(h.weights.row(i).head(i + 1).sum(), 1.0f, 1e-6f);
    }
  // The first query can only see itself.
  EXPECT_EQ(res.heads[0].weights(0, 0), 1.0f);
}

TEST(EngineSlice, EntropyMatchesHandComputedValue) {
  // One head, d_k = 1: q = [0; 0], k = [0; ln 3], v = I.
  // Scaled logits for either query are 0 * k = [0, 0] -> weights [1/2, 1/2], H = ln 2.
  // Then a second case: q = [1], k = [0; ln 3]: logits [0, ln 3] -> weights [1/4, 3/4],
  // H = -(1/4 ln 1/4 + 3/4 ln 3/4) = 0.5623351446...
  AttentionInput in;
  Mat q(2, 1), k(2, 1), v = Mat::Identity(2, 2);
  q << 0, 1;
  k << 0, std::log(3.0f);
  in.q = {q};
  in.k = {k};
  in.v = {v};
  AttentionSpec spec;
  spec.mechanism = Mechanism::Dot;
  auto res = runAttention(in, spec);
  ASSERT_TRUE(res.ok());
  const auto& h = res->heads[0];
  EXPECT_NEAR(h.entropy[0], std::log(2.0), 1e-6);
  EXPECT_NEAR(h.weights(1, 0), 0.25f, 1e-6f);
  EXPECT_NEAR(h.weights(1, 1), 0.75f, 1e-6f);
  EXPECT_NEAR(h.entropy[1], 0.5623351446188083, 1e-6);
  EXPECT_NEAR(rowEntropy(h.weights)[1], 0.5623351446188083, 1e-6);
}

TEST(EngineSlice, SameSeedSameWeightsOtherSeedDifferent) {
  const std::string text = "attention is all you need";
  const auto a = runSentence(text, Mask(), 1);
  const auto b = runSentence(text, Mask(), 1);
  const auto c = runSentence(text, Mask(), 2);
  for (int h = 0; h < a.numHeads(); ++h) EXPECT_EQ(a.heads[h].weights, b.heads[h].weights);
  EXPECT_GT((a.heads[0].weights - c.heads[0].weights).cwiseAbs().maxCoeff(), 1e-3f);
}

TEST(EngineSlice, RejectsBadConfiguration) {
  AttentionSpec spec;
  spec.heads = 3;
  spec.dModel = 32;  // not divisible by 3
  auto res = runAttention(inputFromTokens({"a", "b"}, 32, 1), spec);
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.error().message.find("not divisible"), std::string::npos);
  spec.heads = 0;
  EXPECT_FALSE(runAttention(inputFromTokens({"a"}, 32, 1), spec).ok());
  spec.heads = 4;
  EXPECT_FALSE(runAttention(inputFromTokens({}, 32, 1), spec).ok());
}

}  // namespace
}  // namespace attn
