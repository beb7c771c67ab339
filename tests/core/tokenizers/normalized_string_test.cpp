// NormalizedString's alignments, computed by hand from the `tokenizers` library's
// rules (normalizer.rs transform_range): a character that replaces another takes its
// source, an inserted one its predecessor's, and removed ones vanish from the map.
#include <gtest/gtest.h>

#include "attn/tokenizers/hf/hf_normalized_string.h"
#include "attn/tokenizers/hf/hf_normalizers.h"
#include "attn/tokenizers/hf/hf_tokenizer.h"

namespace {

using attn::models::NormalizedString;
using Span = NormalizedString::Span;
namespace uni = attn::models::uni;

TEST(NormalizedString, NfkcLigatureMapsBothLettersToTheOneCharacter) {
  // "aﬁb": U+FB01 is bytes 1..4 of the original; NFKC gives "afib".
  NormalizedString n = NormalizedString::fromOriginal(
      "a\xEF\xAC\x81"
      "b",
      0);
  n.normalizeForm(uni::Form::Nfkc);
  ASSERT_EQ(n.get(), "afib");
  EXPECT_EQ(n.originalRange(0, 1), Span(0, 1));
  EXPECT_EQ(n.originalRange(1, 2), Span(1, 4));
  EXPECT_EQ(n.originalRange(2, 3), Span(1, 4));
  EXPECT_EQ(n.originalRange(1, 3), Span(1, 4));
  EXPECT_EQ(n.originalRange(3, 4), Span(4, 5));
}

TEST(NormalizedString, NfkcFullWidthDigitsKeepOneSourceEach) {
  // "１２" (U+FF11 U+FF12, three bytes each) at byte 10 of some text: "12".
  NormalizedString n = NormalizedString::fromOriginal("\xEF\xBC\x91\xEF\xBC\x92", 10);
  n.normalizeForm(uni::Form::Nfkc);
  ASSERT_EQ(n.get(), "12");
  EXPECT_EQ(n.originalRange(0, 1), Span(10, 13));
  EXPECT_EQ(n.originalRange(1, 2), Span(13, 16));
}

TEST(NormalizedString, NfcCompositionKeepsTheBaseAndDropsTheMark) {
  // "e" + U+0301 (bytes 1..3) compose to "é" with change -1: it replaces "e" and the
  // mark is removed, so "é" points at "e" alone (npm tokenizers gives [0, 1] too).
  NormalizedString n = NormalizedString::fromOriginal("e\xCC\x81x", 0);
  n.normalizeForm(uni::Form::Nfc);
  ASSERT_EQ(n.get(), "\xC3\xA9x");
  EXPECT_EQ(n.originalRange(0, 2), Span(0, 1));
  EXPECT_EQ(n.originalRange(2, 3), Span(3, 4));
}

TEST(NormalizedString, BertNormalizerPadsChineseCharactersWithTheirOwnSource) {
  // "a中b": 中 is bytes 1..4; the spaces around it are inserted and point at it too.
  NormalizedString n = NormalizedString::fromOriginal(
      "a\xE4\xB8\xAD"
      "b",
      0);
  attn::models::bertNormalizer(true, true, false, false)(n);
  ASSERT_EQ(n.get(), "a \xE4\xB8\xAD b");
  EXPECT_EQ(n.originalRange(0, 1), Span(0, 1));
  EXPECT_EQ(n.originalRange(1, 2), Span(1, 4));
  EXPECT_EQ(n.originalRange(2, 5), Span(1, 4));
  EXPECT_EQ(n.originalRange(5, 6), Span(1, 4));
  EXPECT_EQ(n.originalRange(6, 7), Span(4, 5));
}

TEST(NormalizedString, LowercaseThatGrowsKeepsTheCapitalsSource) {
  // "xİ": U+0130 (bytes 1..3) lowercases to "i" + U+0307, three bytes from two.
  NormalizedString n = NormalizedString::fromOriginal("x\xC4\xB0", 0);
  n.lowercase();
  ASSERT_EQ(n.get(), "xi\xCC\x87");
  EXPECT_EQ(n.originalRange(1, 2), Span(1, 3));
  EXPECT_EQ(n.originalRange(2, 4), Span(1, 3));
  EXPECT_EQ(n.originalRange(0, 4), Span(0, 3));
}

TEST(NormalizedString, StripAndFilterRemoveCharactersFromTheMap) {
  NormalizedString n = NormalizedString::fromOriginal(
      "  ab\xE2\x80\x8B"
      "c ",
      0);  // U+200B at bytes 4..7
  n.strip(true, true);
  ASSERT_EQ(n.get(),
            "ab\xE2\x80\x8B"
            "c");
  n.filter([](char32_t c) { return c != 0x200B; });
  ASSERT_EQ(n.get(), "abc");
  EXPECT_EQ(n.originalRange(0, 1), Span(2, 3));
  EXPECT_EQ(n.originalRange(1, 2), Span(3, 4));
  EXPECT_EQ(n.originalRange(2, 3), Span(7, 8));
}

TEST(NormalizedString, PrependAndReplaceTakeTheirNeighboursSource) {
  // Metaspace: " " -> "▁" keeps the space's source; a prepended "▁" takes the first character's.
  NormalizedString n = NormalizedString::fromOriginal("ab c", 5);
  n.replaceMatches({{2, 3}}, "\xE2\x96\x81");
  n.prepend("\xE2\x96\x81");
  ASSERT_EQ(n.get(),
            "\xE2\x96\x81"
            "ab\xE2\x96\x81"
            "c");
  EXPECT_EQ(n.originalRange(0, 3), Span(5, 6));
  EXPECT_EQ(n.originalRange(0, 5), Span(5, 7));
  EXPECT_EQ(n.originalRange(5, 8), Span(7, 8));
  const NormalizedString tail = n.slice(5, 9);
  EXPECT_EQ(tail.originalStart(), 7u);
  EXPECT_EQ(tail.originalRange(0, 4), Span(7, 9));
}

TEST(NormalizedString, CodePointOffsetsCountCharacters) {
  // "é😀a": é bytes 0..2, 😀 2..6, a 6..7.
  const std::string text =
      "\xC3\xA9\xF0\x9F\x98\x80"
      "a";
  const auto out = attn::models::toCodePointOffsets(text, {{0, 2}, {2, 6}, {6, 7}, {0, 0}, {0, 7}});
  const std::vector<std::pair<int, int>> want{{0, 1}, {1, 2}, {2, 3}, {0, 0}, {0, 3}};
  EXPECT_EQ(out, want);
}

}  // namespace
