#include "attn/tokenizers/hf/hf_normalized_string.h"

#include <algorithm>
#include <optional>

#include "attn/io/utf8.h"

namespace attn::models {
namespace {

size_t leadByteLength(unsigned char b) {
  return b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : 4;
}

std::u32string codePoints(const std::string& text) { return utf8ToUtf32(text).value_or(std::u32string()); }

std::string charToUtf8(char32_t c) { return utf32ToUtf8(std::u32string_view(&c, 1)); }

bool isAsciiText(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

using Change = NormalizedString::Change;

// unicode-normalization-alignments' Decompositions: each character's full
// decomposition, its first part replacing it (0) and the rest inserted (+1), then
// every run of non-starters stably sorted by combining class (canonical ordering).
std::vector<Change> decomposeAligned(const std::u32string& in, bool compatibility) {
  std::vector<Change> out;
  for (char32_t c : in) {
    const std::u32string d = uni::decomposeChar(c, compatibility);
    for (size_t k = 0; k < d.size(); ++k) out.push_back({d[k], k == 0 ? 0 : 1});
  }
  for (size_t i = 0; i < out.size();) {
    if (uni::combiningClass(out[i].c) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < out.size() && uni::combiningClass(out[j].c) != 0) ++j;
    std::stable_sort(
        out.begin() + static_cast<std::ptrdiff_t>(i), out.begin() + static_cast<std::ptrdiff_t>(j),
        [](const Change& a, const Change& b) { return uni::combiningClass(a.c) < uni::combiningClass(b.c); });
    i = j;
  }
  return out;
}

// The crate's Recompositions state machine: a composed pair carries the change
// a + b - 1 (it replaces the first and removes what the second stood for).
std::vector<Change> recomposeAligned(const std::vector<Change>& in) {
  std::vector<Change> out, buffer;
  std::optional<Change> composee;
  int lastClass = -1;  // -1: none
  for (const Change& ch : in) {
    const int cls = uni::combiningClass(ch.c);
    if (!composee) {
      if (cls != 0)
        out.push_back(ch);
      else
        composee = ch;
      continue;
    }
    const Change k = *composee;
    if (lastClass >= 0 && lastClass >= cls) {  // blocked from the composee
      if (cls == 0) {
        out.push_back(k);
        out.insert(out.end(), buffer.begin(), buffer.end());
        buffer.clear();
        composee = ch;
        lastClass = -1;
      } else {
        buffer.push_back(ch);
        lastClass = cls;
      }
      continue;
    }
    if (const char32_t r = uni::composePair(k.c, ch.c)) {
      composee = Change{r, k.change + ch.change - 1};
      continue;
    }
    if (lastClass < 0 && cls == 0) {
      out.push_back(k);
      composee = ch;
      continue;
    }
    buffer.push_back(ch);
    lastClass = cls;
  }
  if (composee) out.push_back(*composee);
  out.insert(out.end(), buffer.begin(), buffer.end());
  return out;
}

}  // namespace

NormalizedString NormalizedString::fromOriginal(std::string_view text, size_t base) {
  NormalizedString n;
  n.text_ = std::string(text);
  n.shift_ = base;
  n.align_.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t len = std::min(leadByteLength(static_cast<unsigned char>(text[i])), text.size() - i);
    for (size_t k = 0; k < len; ++k) n.align_.emplace_back(base + i, base + i + len);
    i += len;
  }
  return n;
}

NormalizedString::Span NormalizedString::alignAt(size_t i) const {
  if (i < align_.size()) return align_[i];
  return align_.empty() ? Span{shift_, shift_} : align_.back();  // the library would panic: stay in range
}

void NormalizedString::transformRange(size_t start, size_t end, const std::vector<Change>& dest,
                                      size_t initialOffset) {
  end = std::min(end, text_.size());
  start = std::min(start, end);
  std::vector<size_t> oldLens;  // the UTF-8 length of each character being replaced
  for (size_t i = start; i < end;) {
    oldLens.push_back(std::min(leadByteLength(static_cast<unsigned char>(text_[i])), end - i));
    i += oldLens.back();
  }
  size_t next = 0, offset = start;
  for (; next < oldLens.size() && next < initialOffset; ++next) offset += oldLens[next];
  std::string out;
  std::vector<Span> align;
  out.reserve(end - start);
  align.reserve(end - start);
  for (const Change& d : dest) {
    const Span a = d.change > 0 ? (offset < 1 ? Span{shift_, shift_} : alignAt(offset - 1)) : alignAt(offset);
    if (d.change <= 0 && next < oldLens.size()) offset += oldLens[next++];
    for (int k = 0; d.change < 0 && k < -d.change && next < oldLens.size(); ++k) offset += oldLens[next++];
    const std::string u = charToUtf8(d.c);
    out += u;
    align.insert(align.end(), u.size(), a);
  }
  text_.replace(start, end - start, out);
  align_.erase(align_.begin() + static_cast<std::ptrdiff_t>(start),
               align_.begin() + static_cast<std::ptrdiff_t>(end));
  align_.insert(align_.begin() + static_cast<std::ptrdiff_t>(start), align.begin(), align.end());
}

NormalizedString NormalizedString::slice(size_t start, size_t end) const {
  end = std::min(end, text_.size());
  start = std::min(start, end);
  NormalizedString n;
  n.text_ = text_.substr(start, end - start);
  n.align_.assign(align_.begin() + static_cast<std::ptrdiff_t>(start),
                  align_.begin() + static_cast<std::ptrdiff_t>(end));
  n.shift_ = start < end ? align_[start].first : shift_ + start;
  return n;
}

NormalizedString::Span NormalizedString::originalRange(size_t start, size_t end) const {
  if (start >= end || end > align_.size()) return {shift_ + start, shift_ + std::max(start, end)};
  return {align_[start].first, align_[end - 1].second};
}

void NormalizedString::filter(const std::function<bool(char32_t)>& keep) {
  std::vector<Change> dest;
  int removed = 0;
  size_t removedStart = 0;
  std::optional<char32_t> last;
  for (char32_t c : codePoints(text_)) {
    if (!keep(c)) {
      ++removed;
      continue;
    }
    if (last)
      dest.push_back({*last, -removed});
    else
      removedStart = static_cast<size_t>(removed);
    last = c;
    removed = 0;
  }
  if (last) dest.push_back({*last, -removed});
  transform(dest, removedStart);
}

void NormalizedString::map(const std::function<char32_t(char32_t)>& f) {
  std::vector<Change> dest;
  for (char32_t c : codePoints(text_)) dest.push_back({f(c), 0});
  transform(dest, 0);
}

void NormalizedString::lowercase() {
  std::vector<Change> dest;
  for (char32_t c : codePoints(text_)) {
    const std::u32string lower = uni::lowercaseChar(c);
    for (size_t k = 0; k < lower.size(); ++k) dest.push_back({lower[k], k == 0 ? 0 : 1});
  }
  transform(dest, 0);
}

void NormalizedString::normalizeForm(uni::Form form) {
  if (isAsciiText(text_)) return;  // every form leaves ASCII unchanged
  const bool compat = form == uni::Form::Nfkc || form == uni::Form::Nfkd;
  std::vector<Change> dest = decomposeAligned(codePoints(text_), compat);
  if (form == uni::Form::Nfc || form == uni::Form::Nfkc) dest = recomposeAligned(dest);
  transform(dest, 0);
}

void NormalizedString::prepend(std::string_view s) {
  if (text_.empty()) return;
  const size_t firstLen = leadByteLength(static_cast<unsigned char>(text_[0]));
  const std::u32string first = codePoints(text_.substr(0, firstLen));
  const std::u32string added = utf8ToUtf32(s).value_or(std::u32string());
  std::vector<Change> dest;
  for (size_t i = 0; i < added.size(); ++i) dest.push_back({added[i], i == 0 ? 0 : 1});
  if (!first.empty()) dest.push_back({first[0], 1});
  transformRange(0, firstLen, dest, 0);
}

void NormalizedString::replaceMatches(const std::vector<std::pair<size_t, size_t>>& matches,
                                      std::string_view content) {
  std::string out;
  std::vector<Span> align;
  size_t last = 0;
  for (const auto& [s, e] : matches) {
    if (s < last || e > text_.size() || e < s) continue;
    out.append(text_, last, s - last);
    align.insert(align.end(), align_.begin() + static_cast<std::ptrdiff_t>(last),
                 align_.begin() + static_cast<std::ptrdiff_t>(s));
    // Every new character is an insertion after the whole match.
    const Span a = e < 1 ? Span{shift_, shift_} : align_[e - 1];
    out.append(content);
    align.insert(align.end(), content.size(), a);
    last = e;
  }
  out.append(text_, last, std::string::npos);
  align.insert(align.end(), align_.begin() + static_cast<std::ptrdiff_t>(last), align_.end());
  text_ = std::move(out);
  align_ = std::move(align);
}

void NormalizedString::strip(bool left, bool right) {
  const std::u32string cs = codePoints(text_);
  size_t leading = 0, trailing = 0;
  if (left)
    while (leading < cs.size() && uni::isWhitespace(cs[leading])) ++leading;
  if (right)
    while (trailing < cs.size() && uni::isWhitespace(cs[cs.size() - 1 - trailing])) ++trailing;
  if (leading == 0 && trailing == 0) return;
  std::vector<Change> dest;
  for (size_t i = 0; i < cs.size(); ++i) {
    if (i < leading || i + trailing >= cs.size()) continue;
    // The library compares the character index with the byte length here; kept.
    const bool lastKept = static_cast<long long>(i) ==
                          static_cast<long long>(text_.size()) - static_cast<long long>(trailing) - 1;
    dest.push_back({cs[i], lastKept ? -static_cast<int>(trailing) : 0});
  }
  transform(dest, leading);
}

std::string normalizedText(const std::function<void(NormalizedString&)>& normalizer, std::string_view text) {
  NormalizedString n = NormalizedString::fromOriginal(text, 0);
  if (normalizer) normalizer(n);
  return n.get();
}

}  // namespace attn::models
