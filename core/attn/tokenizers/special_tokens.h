#pragma once
// Model special tokens written in text ("[PAD]", "[CLS]", "<pad>", "</s>",
// "<|endoftext|>") stay one token instead of splitting at their brackets, so a
// padded example keeps its padding tokens.
#include <cstddef>
#include <string_view>

namespace attn {

/// Length of the special token starting at text[pos], or 0 if none does.
inline size_t specialTokenLength(std::string_view text, size_t pos) {
  if (pos >= text.size() || (text[pos] != '[' && text[pos] != '<')) return 0;
  const char close = text[pos] == '[' ? ']' : '>';
  size_t i = pos + 1;
  if (close == '>' && i < text.size() && text[i] == '/') ++i;
  const size_t bodyStart = i;
  while (i < text.size() && i - bodyStart < 16) {
    const char c = text[i];
    if (c == close) return i > bodyStart ? i + 1 - pos : 0;
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || (close == '>' && c == '|');
    if (!ok) return 0;
    ++i;
  }
  return 0;
}

}  // namespace attn
