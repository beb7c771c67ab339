#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace attn {

/// Character-level for CJK, word-level for everything else: each Han
/// ideograph, kana and CJK/full-width punctuation mark is one token (Chinese
/// and Japanese are written without spaces); Latin, Greek, Cyrillic etc. split
/// on whitespace with each punctuation mark its own token. Input must be valid
/// UTF-8 (invalid input gives no tokens; callers validate and report).
std::vector<std::string> tokenizeChars(std::string_view text);

}  // namespace attn
