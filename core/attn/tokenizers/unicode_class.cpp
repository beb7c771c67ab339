#include "attn/tokenizers/unicode_class.h"

namespace attn::unicode {

bool isSpace(char32_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

bool isCjk(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) ||    // CJK Unified Ideographs
         (c >= 0x3400 && c <= 0x4DBF) ||    // Extension A
         (c >= 0x20000 && c <= 0x2FA1F) ||  // Extensions B-F, compatibility supplement
         (c >= 0xF900 && c <= 0xFAFF) ||    // Compatibility Ideographs
         (c >= 0x3040 && c <= 0x30FF) ||    // Hiragana, Katakana
         (c >= 0x3001 && c <= 0x303F) ||    // CJK symbols and punctuation (not U+3000 space)
         (c >= 0xFF01 && c <= 0xFF60);      // full-width ASCII forms and punctuation
}

bool isPunctOrSymbol(char32_t c) {
  if (c < 0x80) return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
                       (c >= 0x7B && c <= 0x7E);
  return (c >= 0xA1 && c <= 0xBF && c != 0xAA && c != 0xB2 && c != 0xB3 && c != 0xB5 && c != 0xB9 && c != 0xBA &&
          c != 0xBC && c != 0xBD && c != 0xBE) ||
         c == 0xD7 || c == 0xF7 ||           // multiplication and division signs
         (c >= 0x2010 && c <= 0x2027) ||     // dashes, quotes, bullets
         (c >= 0x2030 && c <= 0x205E) ||     // per mille, primes, brackets
         (c >= 0x20A0 && c <= 0x20CF) ||     // currency
         (c >= 0x2190 && c <= 0x23FF) ||     // arrows, math operators, technical
         (c >= 0x25A0 && c <= 0x27BF) ||     // shapes, dingbats
         (c >= 0x3001 && c <= 0x3003) || (c >= 0x3008 && c <= 0x3011) || (c >= 0x3014 && c <= 0x301F) ||
         (c >= 0xFF01 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) ||
         (c >= 0xFF5B && c <= 0xFF65);
}

bool isDigit(char32_t c) {
  return (c >= '0' && c <= '9') || c == 0xB2 || c == 0xB3 || c == 0xB9 || (c >= 0xBC && c <= 0xBE) ||
         (c >= 0x660 && c <= 0x669) || (c >= 0x6F0 && c <= 0x6F9) || (c >= 0x966 && c <= 0x96F) ||
         (c >= 0xFF10 && c <= 0xFF19) || (c >= 0x2070 && c <= 0x2079) || (c >= 0x2080 && c <= 0x2089) ||
         (c >= 0x2460 && c <= 0x249B);
}

}  // namespace attn::unicode
