#include "attn/tokenizers/hf/hf_added_vocabulary.h"

#include <unicode/uchar.h>

#include <algorithm>

#include "attn/io/utf8.h"
#include "attn/tokenizers/hf/hf_unicode.h"

namespace attn::models {
namespace {

// Rust regex's Unicode \w: Alphabetic, marks, decimal digits, connector punctuation, joiners.
bool isWordChar(char32_t c) {
  const auto u = static_cast<UChar32>(c);
  if (u_hasBinaryProperty(u, UCHAR_ALPHABETIC) || u_hasBinaryProperty(u, UCHAR_JOIN_CONTROL)) return true;
  switch (u_charType(u)) {
    case U_NON_SPACING_MARK: case U_ENCLOSING_MARK: case U_COMBINING_SPACING_MARK: case U_DECIMAL_DIGIT_NUMBER:
    case U_CONNECTOR_PUNCTUATION:
      return true;
    default:
      return false;
  }
}

char32_t lastChar(std::string_view s) {
  if (s.empty()) return 0;
  size_t i = s.size() - 1;
  while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  const auto cps = utf8ToUtf32(s.substr(i));
  return cps && !cps->empty() ? cps->back() : 0;
}

char32_t firstChar(std::string_view s) {
  if (s.empty()) return 0;
  const auto b = static_cast<unsigned char>(s[0]);
  const size_t len = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : 4;
  const auto cps = utf8ToUtf32(s.substr(0, std::min(len, s.size())));
  return cps && !cps->empty() ? (*cps)[0] : 0;
}

// Start of the whitespace run that ends `s` (regex \s*$).
size_t trailingSpaceStart(std::string_view s) {
  const auto cps = utf8ToUtf32(s);
  if (!cps) return s.size();
  size_t bytes = s.size();
  for (auto it = cps->rbegin(); it != cps->rend() && uni::isWhitespace(*it); ++it)
    bytes -= utf32ToUtf8(std::u32string(1, *it)).size();
  return bytes;
}

// Length of the whitespace run that starts `s` (regex ^\s*).
size_t leadingSpaceLength(std::string_view s) {
  size_t bytes = 0;
  while (bytes < s.size()) {
    const char32_t c = firstChar(s.substr(bytes));
    if (!uni::isWhitespace(c)) break;
    bytes += utf32ToUtf8(std::u32string(1, c)).size();
  }
  return bytes;
}

}  // namespace

void AddedVocabulary::build(std::vector<AddedToken> tokens, const std::vector<std::string>& normalizedForms) {
  tokens_ = std::move(tokens);
  raw_.clear();
  normalized_.clear();
  for (size_t i = 0; i < tokens_.size(); ++i) {
    const AddedToken& t = tokens_[i];
    if (t.content.empty()) continue;
    if (t.normalized && !t.special) {
      const std::string& n = i < normalizedForms.size() ? normalizedForms[i] : t.content;
      if (!n.empty()) normalized_.push_back({n, static_cast<int>(i)});
    } else {
      raw_.push_back({t.content, static_cast<int>(i)});
    }
  }
}

std::vector<AddedSplit> AddedVocabulary::split(std::string_view text, bool normalizedSet) const {
  const auto& patterns = normalizedSet ? normalized_ : raw_;
  std::vector<AddedSplit> out;
  if (text.empty()) return {{0, 0, -1}};
  size_t startOffset = 0;
  size_t pos = 0;  // where the non-overlapping search resumes (the matcher's own end)
  while (pos < text.size() && !patterns.empty()) {
    // Leftmost-longest, as the library's Aho-Corasick automaton with MatchKind::LeftmostLongest.
    size_t bestStart = std::string_view::npos, bestLen = 0;
    int best = -1;
    for (size_t i = pos; i < text.size() && best < 0; ++i)
      for (const auto& p : patterns)
        if (p.text.size() > bestLen && text.compare(i, p.text.size(), p.text) == 0) {
          bestStart = i;
          bestLen = p.text.size();
          best = p.token;
        }
    if (best < 0) break;
    // All patterns at bestStart were compared; `best` is the longest there.
    size_t start = bestStart, stop = bestStart + bestLen;
    pos = stop;
    const AddedToken& t = tokens_[static_cast<size_t>(best)];
    if (t.singleWord) {
      const bool startSpace = start == 0 || !isWordChar(lastChar(text.substr(0, start)));
      const bool stopSpace = stop == text.size() || !isWordChar(firstChar(text.substr(stop)));
      if (!startSpace || !stopSpace) continue;
    }
    if (t.lstrip) start = std::max(trailingSpaceStart(text.substr(0, start)), startOffset);
    if (t.rstrip) stop += leadingSpaceLength(text.substr(stop));
    if (startOffset < start) out.push_back({startOffset, start, -1});
    out.push_back({start, stop, best});
    startOffset = stop;
  }
  if (startOffset != text.size()) out.push_back({startOffset, text.size(), -1});
  return out;
}

}  // namespace attn::models
