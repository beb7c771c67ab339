#include "attn/tokenizers/char_tokenizer.h"

#include "attn/io/utf8.h"
#include "attn/tokenizers/special_tokens.h"
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
  // Special tokens are ASCII, so code point i of the pure-ASCII prefix check is byte-exact:
  // walk bytes and code points together.
  size_t byte = 0;
  for (size_t k = 0; k < cps->size(); ++k) {
    const char32_t c = (*cps)[k];
    const size_t cpBytes = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (const size_t n = specialTokenLength(text, byte); n > 0) {
      flush();
      tokens.emplace_back(text.substr(byte, n));
      k += n - 1;  // n ASCII bytes = n code points
      byte += n;
      continue;
    }
    byte += cpBytes;
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
