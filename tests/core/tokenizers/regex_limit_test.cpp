// A tokenizer regex that backtracks catastrophically makes ICU give up; the
// matches found until then are not what the pattern defines, so encoding is an
// error naming the tokenizer file and the pattern, never a shorter token list.
#include <gtest/gtest.h>

#include <chrono>

#include "attn/tokenizers/hf/hf_tokenizer.h"
#include "attn/tokenizers/hf/hf_unicode.h"
#include "attn/tokenizers/text_tokenizer.h"
#include "watchdog.h"

namespace attn {
namespace {

using namespace std::chrono_literals;

// (a+)+$ on "aaa...ab" tries every split of the a's: 2^40 paths.
const std::string kCatastrophic = "(a+)+$";

std::string catastrophicTokenizerJson(const std::string& pattern) {
  return R"({"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1, "b": 2, "##a": 3}},
    "pre_tokenizer": {"type": "Split", "pattern": {"Regex": ")" +
         pattern + R"("}, "behavior": "Isolated"}})";
}

TEST(RegexLimit, CatastrophicBacktrackingIsAnErrorNamingFileAndPattern) {
  auto tok =
      models::HfTokenizer::fromTokenizerJson(catastrophicTokenizerJson(kCatastrophic), "bad_regex.json");
  ASSERT_TRUE(tok.ok()) << tok.error().message;
  test::Watchdog dog(60s, "encoding with a catastrophic regex");
  const std::string text = std::string(40, 'a') + "b";
  auto e = tok->encode(text, std::nullopt, false, "--text");
  ASSERT_FALSE(e.ok()) << "got " << e->size() << " tokens";
  const std::string& m = e.error().message;
  EXPECT_TRUE(m.starts_with("bad_regex.json: the regex '(a+)+$' hit the regex engine's time limit")) << m;
  EXPECT_NE(m.find("U_REGEX_TIME_OUT"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos);
  // A short text the same pattern handles in time still tokenizes.
  auto fine = tok->encode("aab", std::nullopt, false, "--text");
  ASSERT_TRUE(fine.ok()) << fine.error().message;
  EXPECT_FALSE(fine->tokens.empty());
}

TEST(RegexLimit, TheTextTokenizerFrontEndReportsItToo) {
  auto tok = TextTokenizer::fromTokenizerJson(catastrophicTokenizerJson(kCatastrophic), "bad_regex.json",
                                              TokenizerKind::WordPiece);
  ASSERT_TRUE(tok.ok()) << tok.error().message;
  test::Watchdog dog(60s, "TextTokenizer with a catastrophic regex");
  auto t = tok->tokenize(std::string(40, 'a') + "b", "--text");
  ASSERT_FALSE(t.ok()) << "got " << t->size() << " tokens";
  EXPECT_TRUE(t.error().message.starts_with("bad_regex.json: the regex ")) << t.error().message;
}

// The limit bounds each match, not the whole text: 12 MB of ordinary words (about
// 24 million engine steps in all, more than the limit) is tokenized in full.
TEST(RegexLimit, ALongTextOfOrdinaryMatchesIsNotRefused) {
  auto re = models::uni::Regex::compile(
      R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)", "gpt2.json");
  ASSERT_TRUE(re.ok()) << re.error().message;
  const int words = 4'000'000;
  std::string text;
  text.reserve(3 * static_cast<size_t>(words));
  for (int i = 0; i < words; ++i) text += "ab ";
  const auto matches = re->findAll(text);                     // throws RegexFailure if refused
  ASSERT_EQ(matches.size(), static_cast<size_t>(words) + 1);  // "ab", (n - 1) x " ab", the final " "
  EXPECT_EQ(matches[1], (std::pair<size_t, size_t>{2, 5}));
  EXPECT_EQ(matches.back(), (std::pair<size_t, size_t>{text.size() - 1, text.size()}));
}

// Empty matches advance by one code point, as ICU's find() does, so a pattern that
// can match nothing neither loops nor splits a multi-byte character.
TEST(RegexLimit, EmptyMatchesStepOverWholeCodePoints) {
  auto re = models::uni::Regex::compile("x*", "empty.json");
  ASSERT_TRUE(re.ok()) << re.error().message;
  const std::string text = "\xe4\xb8\xadxx\xe6\x96\x87";  // 中xx文
  const auto m = re->findAll(text);
  const std::vector<std::pair<size_t, size_t>> want{{0, 0}, {3, 5}, {5, 5}, {8, 8}};
  EXPECT_EQ(m, want);
}

}  // namespace
}  // namespace attn
