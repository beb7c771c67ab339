#include "attn/tokenizers/tokenizer.h"

#include <cctype>

#include "attn/tokenizers/special_tokens.h"

namespace attn {

std::vector<std::string> tokenizeWords(std::string_view text) {
  std::vector<std::string> tokens;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) tokens.push_back(std::move(current));
    current.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (const size_t n = specialTokenLength(text, i); n > 0) {
      flush();
      tokens.emplace_back(text.substr(i, n));
      i += n - 1;
    } else if (c < 0x80 && std::isspace(c)) {
      flush();
    } else if (c < 0x80 && std::ispunct(c)) {
      flush();
      tokens.emplace_back(1, static_cast<char>(c));
    } else {
      current.push_back(static_cast<char>(c));
    }
  }
  flush();
  return tokens;
}

}  // namespace attn
