#include "attn/tokenizers/char_tokenizer.h"

#include "attn/io/utf8.h"
#include "attn/tokenizers/unicode_class.h"

namespace attn {

std::vector<std::string> tokenizeChars(std::string_view text) {
  std::vector<std::string> tokens;
  auto cps = utf8ToUtf32(text);
  if (!cps) return tokens;  // callers validate UTF-8 and name the file
  std::u32string word;
  auto flush = [&] {
    if (!word.empty()) tokens.push_back(utf32ToUtf8(word));
    word.clear();
  };
  for (char32_t c : *cps) {
    if (unicode::isSpace(c) || c < 0x20) {
      flush();
    } else if (unicode::isCjk(c) || unicode::isPunctOrSymbol(c)) {
      flush();
      tokens.push_back(utf32ToUtf8(std::u32string(1, c)));
    } else {
      word.push_back(c);
    }
  }
  flush();
  return tokens;
}

}  // namespace attn
