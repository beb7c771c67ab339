#pragma once
// Coarse Unicode classes for tokenizers, without ICU: exact for ASCII, by block
// for the scripts and punctuation AttnScope's users type (Latin, Greek,
// Cyrillic, CJK, kana, Hangul). Letters are "everything else that is not space,
// punctuation/symbol or digit", which is what \p{L} gives for those scripts.
namespace attn::unicode {

bool isSpace(char32_t c);
/// Han ideographs, kana, CJK punctuation and full-width forms: one token each.
bool isCjk(char32_t c);
bool isPunctOrSymbol(char32_t c);
bool isDigit(char32_t c);
inline bool isLetter(char32_t c) { return !isSpace(c) && !isPunctOrSymbol(c) && !isDigit(c) && c >= 0x20; }

}  // namespace attn::unicode
