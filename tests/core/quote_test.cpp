// Untrusted text inside one-line error messages.
#include <gtest/gtest.h>

#include "attn/quote.h"

namespace attn {
namespace {

TEST(QuoteForMessage, EscapesControlCharactersAndShortens) {
  EXPECT_EQ(quoteForMessage("window:4"), "'window:4'");
  EXPECT_EQ(quoteForMessage("a\nb\tc\x01"), "'a\\nb\\tc\\x01'");
  EXPECT_EQ(quoteForMessage(std::string(100, 'x'), 4), "'xxxx' (+96 more bytes)");
  EXPECT_EQ(quoteForMessage("词"), "'词'");  // UTF-8 passes through
}

}  // namespace
}  // namespace attn
