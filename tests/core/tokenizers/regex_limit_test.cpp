// A tokenizer regex that backtracks catastrophically makes ICU give up; the
// matches found until then are not what the pattern defines, so encoding is an
// error naming the tokenizer file and the pattern, never a shorter token list.
#include <gtest/gtest.h>

#include <chrono>

#include "attn/tokenizers/hf/hf_tokenizer.h"
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

}  // namespace
}  // namespace attn
