// Untrusted text inside one-line error messages.
#include <gtest/gtest.h>

#include "attn/io/quote.h"

namespace attn {
namespace {

TEST(QuoteForMessage, EscapesControlCharactersAndShortens) {
  EXPECT_EQ(quoteForMessage("window:4"), "'window:4'");
  EXPECT_EQ(quoteForMessage("a\nb\tc\x01"), "'a\\nb\\tc\\x01'");
  EXPECT_EQ(quoteForMessage(std::string(100, 'x'), 4), "'xxxx' (+96 more bytes)");
  // Escapes count against the bound: 100 DEL bytes do not make a 400-byte quote.
  EXPECT_EQ(quoteForMessage(std::string(100, '\x7f'), 8), "'\\x7f\\x7f' (+98 more bytes)");
  EXPECT_EQ(quoteForMessage("词"), "'词'");  // UTF-8 passes through
}

}  // namespace
}  // namespace attn

#include "attn/masks/mask.h"
#include "attn/io/session.h"

namespace attn {
namespace {

// Regressions found by the mask and session fuzz targets: a newline inside an
// unknown name split the one-line error in two.
TEST(QuoteForMessage, UnknownNamesWithNewlinesKeepErrorsOnOneLine) {
  auto m = Mask::parse("window:4\n");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message.find('\n'), std::string::npos) << m.error().message;
  auto s = sessionFromJson(R"({"format": "attnscope-session", "version": 1, "config": {"mechanism": "a\nb"}})",
                           "s.json");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message.find('\n'), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("'a\\nb'"), std::string::npos) << s.error().message;
}

}  // namespace
}  // namespace attn
