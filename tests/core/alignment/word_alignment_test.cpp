// Pharaoh links, argmax alignments from cross-attention and Och & Ney's alignment error rate on
// cases worked by hand.
#include "attn/alignment/word_alignment.h"

#include <gtest/gtest.h>

namespace attn::alignment {
namespace {

TEST(WordAlignment, PharaohSureAndPossibleLinks) {
  auto ref = parsePharaoh(" 0-0 1-2\t2?1\n3-3-P 4-1-S ", "ref.txt");
  ASSERT_TRUE(ref.ok()) << ref.error().message;
  EXPECT_EQ(ref->sure, (std::set<Link>{{0, 0}, {1, 2}, {4, 1}}));
  EXPECT_EQ(ref->possible, (std::set<Link>{{0, 0}, {1, 2}, {2, 1}, {3, 3}, {4, 1}}));
  auto empty = parsePharaoh("   ", "ref.txt");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->possible.empty());
}

TEST(WordAlignment, BadLinksNameTheSourceAndTheLink) {
  const auto err = [](std::string_view text, int ns = 0, int nt = 0) {
    auto r = parsePharaoh(text, "ref.txt", ns, nt);
    return r.ok() ? std::string("ok") : r.error().message;
  };
  EXPECT_EQ(err("0-0 1-x"), "ref.txt: '1-x' is not a link (expected i-j, i?j or i-j-P with 0-based indices)");
  EXPECT_EQ(err("1--2"), "ref.txt: '1--2' is not a link (expected i-j, i?j or i-j-P with 0-based indices)");
  EXPECT_EQ(err("12"), "ref.txt: '12' is not a link (expected i-j, i?j or i-j-P with 0-based indices)");
  EXPECT_EQ(err("0-1-Q"), "ref.txt: '0-1-Q' is not a link (expected i-j, i?j or i-j-P with 0-based indices)");
  EXPECT_EQ(err("9999999999-1"),
            "ref.txt: '9999999999-1' is not a link (expected i-j, i?j or i-j-P with 0-based indices)");
  EXPECT_EQ(err("0-0 3-1", 3, 5), "ref.txt: link 3-1 names source token 3, but the source has 3 tokens");
  EXPECT_EQ(err("0-5", 3, 5), "ref.txt: link 0-5 names target token 5, but the target has 5 tokens");
}

TEST(WordAlignment, ArgmaxTakesEachTargetRowsLargestSourceWeight) {
  Mat cross(4, 3);
  cross << 0.2f, 0.5f, 0.3f,  //
      0.6f, 0.2f, 0.2f,       //
      0.0f, 0.0f, 0.0f,       // a row with no weight (e.g. masked) gives no link
      0.4f, 0.4f, 0.2f;       // a tie: the first column
  EXPECT_EQ(argmaxAlignment(cross), (std::vector<Link>{{1, 0}, {0, 1}, {0, 3}}));
  // Skipping the decoder-start row and the source's first column (say, a language code):
  // row 1's 0.2, 0.2 tie goes to column 1, row 3's 0.4 is at column 1.
  EXPECT_EQ(argmaxAlignment(cross, 1, 1), (std::vector<Link>{{1, 1}, {1, 3}}));
  EXPECT_EQ(argmaxAlignment(cross, 0, 0, 1), (std::vector<Link>{{0, 0}, {0, 1}, {0, 3}}));
  EXPECT_EQ(toPharaoh(argmaxAlignment(cross)), "0-1 0-3 1-0");
}

TEST(WordAlignment, AlignmentErrorRateIsOchAndNeys) {
  // S = {0-0, 1-2}, P = S + {2-1}; A = {0-0, 1-1, 2-1}:
  // |A∩S| = 1, |A∩P| = 2, |A| = 3, |S| = 2 -> AER = 1 - 3/5 = 0.4; precision 2/3, recall 1/2.
  auto ref = parsePharaoh("0-0 1-2 2?1", "ref");
  ASSERT_TRUE(ref.ok());
  auto s = alignmentErrorRate({{0, 0}, {1, 1}, {2, 1}}, *ref);
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(s->aer, 0.4, 1e-12);
  EXPECT_NEAR(s->precision, 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(s->recall, 0.5, 1e-12);
  EXPECT_EQ(s->links, 3);
  // The reference itself scores 0; nothing in common scores 1; duplicates count once.
  auto same = alignmentErrorRate({{0, 0}, {1, 2}, {1, 2}}, *ref);
  ASSERT_TRUE(same.ok());
  EXPECT_NEAR(same->aer, 0.0, 1e-12);
  auto none = alignmentErrorRate({{3, 3}}, *ref);
  ASSERT_TRUE(none.ok());
  EXPECT_NEAR(none->aer, 1.0, 1e-12);
  ReferenceAlignment empty;
  auto bad = alignmentErrorRate({{0, 0}}, empty);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "the reference alignment has no links");
}

}  // namespace
}  // namespace attn::alignment
