#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace attn {

/// Splits on whitespace; each ASCII punctuation character becomes its own token.
/// Multi-byte UTF-8 sequences are kept whole inside words; special tokens such
/// as [PAD] or </s> stay whole.
std::vector<std::string> tokenizeWords(std::string_view text);

}  // namespace attn
