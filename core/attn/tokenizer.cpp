#include "attn/tokenizer.h"

#include <cctype>

namespace attn {

std::vector<std::string> tokenizeWords(std::string_view text) {
  std::vector<std::string> tokens;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) tokens.push_back(std::move(current));
    current.clear();
  };
  for (unsigned char c : text) {
    if (c < 0x80 && std::isspace(c)) {
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
