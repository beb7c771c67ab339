// The repeated random sequence the head types are measured on (its frame of
// special tokens, two equal copies of distinct ordinary tokens, the seed) and
// the model-level driver's scores against the map-level functions.
#include "attn/models/experiments/head_types_run.h"

#include <gtest/gtest.h>

#include <set>

#include "model_fixtures.h"

namespace attn::models {
namespace {

std::shared_ptr<const Model> openHeadTypesFixture(const std::string& name) {
  auto m = Model::open(test::modelDir(name));
  EXPECT_TRUE(m.ok()) << (m ? "" : m.error().message);
  return m ? *m : nullptr;
}

void expectTwoDistinctCopies(const RepeatedSequence& s, int n) {
  ASSERT_EQ(s.period, n);
  ASSERT_EQ(s.secondCopy.end - s.secondCopy.begin, n);
  const auto& ids = s.encoding.ids;
  std::set<int> distinct;
  for (int i = 0; i < n; ++i) {
    const int a = ids[static_cast<size_t>(s.secondCopy.begin - n + i)];
    EXPECT_EQ(a, ids[static_cast<size_t>(s.secondCopy.begin + i)]) << i;
    distinct.insert(a);
    EXPECT_EQ(s.encoding.special[static_cast<size_t>(s.secondCopy.begin + i)], 0);
  }
  EXPECT_EQ(static_cast<int>(distinct.size()), n);
  EXPECT_EQ(s.encoding.tokens.size(), ids.size());
}

TEST(HeadTypesRun, Gpt2SequenceStartsWithEndOfTextAndRepeats) {
  auto model = openHeadTypesFixture("gpt2");
  ASSERT_TRUE(model);
  auto s = repeatedRandomSequence(*model, 10, 7);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->encoding.size(), 21);
  EXPECT_EQ(s->encoding.tokens.front(), "<|endoftext|>");
  EXPECT_EQ(s->secondCopy.begin, 11);
  expectTwoDistinctCopies(*s, 10);
  for (int id : s->encoding.ids) EXPECT_LT(id, model->info().vocabSize);
  // The seed decides the tokens: the same seed again, another seed differs.
  auto again = repeatedRandomSequence(*model, 10, 7);
  auto other = repeatedRandomSequence(*model, 10, 8);
  ASSERT_TRUE(again.ok() && other.ok());
  EXPECT_EQ(again->encoding.ids, s->encoding.ids);
  EXPECT_NE(other->encoding.ids, s->encoding.ids);
  // Default length: 50 does not fit 64 positions; (64 - 1) / 2 = 31 does.
  auto fitted = repeatedRandomSequence(*model, 0, 1);
  ASSERT_TRUE(fitted.ok()) << fitted.error().message;
  EXPECT_EQ(fitted->period, 31);
}

TEST(HeadTypesRun, BertSequenceKeepsClsAndSep) {
  auto model = openHeadTypesFixture("bert");
  ASSERT_TRUE(model);
  auto s = repeatedRandomSequence(*model, 6, 3);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->encoding.tokens.front(), "[CLS]");
  EXPECT_EQ(s->encoding.tokens.back(), "[SEP]");
  EXPECT_EQ(s->encoding.size(), 14);
  expectTwoDistinctCopies(*s, 6);
  for (const auto& t : s->encoding.tokens)
    if (t != "[CLS]" && t != "[SEP]") EXPECT_FALSE(t.size() >= 3 && t.front() == '[' && t.back() == ']') << t;
}

TEST(HeadTypesRun, BadLengthsNameTheModelAndTheLimit) {
  auto model = openHeadTypesFixture("gpt2");
  ASSERT_TRUE(model);
  auto one = repeatedRandomSequence(*model, 1, 0);
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.error().message.find("at least 2"), std::string::npos) << one.error().message;
  auto lng = repeatedRandomSequence(*model, 40, 0);
  ASSERT_FALSE(lng.ok());
  EXPECT_NE(lng.error().message.find("64 positions"), std::string::npos) << lng.error().message;
  EXPECT_NE(lng.error().message.find("gpt2"), std::string::npos) << lng.error().message;
}

TEST(HeadTypesRun, ScoresAreTheMapScoresOfTheRun) {
  auto model = openHeadTypesFixture("gpt2");
  ASSERT_TRUE(model);
  HeadTypeRunOptions opt;
  opt.seed = 5;
  opt.length = 12;
  auto t = modelHeadTypes(*model, opt);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->scores.size(), 2u);
  ASSERT_EQ(t->scores[0].size(), 4u);
  auto run = model->run(t->sequence.encoding);
  ASSERT_TRUE(run.ok()) << run.error().message;
  for (size_t l = 0; l < 2; ++l)
    for (size_t h = 0; h < 4; ++h) {
      const Mat& w = run->layers[l].heads[h].weights;
      const RowRange rows{1 + 12, 1 + 24};  // after <|endoftext|>: the second copy
      EXPECT_FLOAT_EQ(t->scores[l][h].induction, inductionScore(w, 12, rows));
      EXPECT_FLOAT_EQ(t->scores[l][h].previousToken, previousTokenScore(w, rows));
      EXPECT_EQ(t->types[l][h], classifyHead(t->scores[l][h]));
    }
}

}  // namespace
}  // namespace attn::models
