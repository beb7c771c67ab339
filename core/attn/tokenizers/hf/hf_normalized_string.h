#pragma once
// Text on its way through the tokenizer pipeline together with where each of its
// bytes came from in the user's text: the `tokenizers` library's NormalizedString
// (tokenizer/normalizer.rs). Normalizers and pre-tokenizers rewrite it only through
// transform(), which takes every new character with the library's change code
// (0: it replaces the next old character; +1: it is inserted; -n: it replaces the
// next old character and the n after it are removed) and gives it the alignment
// NormalizedString::transform_range gives, so that token offsets come out as the
// library reports them: an inserted character shares its predecessor's source, a
// decomposed or case-folded character points at the character it came from.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attn/tokenizers/hf/hf_unicode.h"

namespace attn::models {

class NormalizedString {
 public:
  /// Bytes [start, end) of the original text.
  using Span = std::pair<size_t, size_t>;
  struct Change {
    char32_t c;
    int change;
  };

  NormalizedString() = default;
  /// `text` (valid UTF-8) found at byte `base` of the original text: every byte
  /// aligned to the whole character it belongs to.
  static NormalizedString fromOriginal(std::string_view text, size_t base);

  const std::string& get() const { return text_; }
  bool empty() const { return text_.empty(); }
  size_t size() const { return text_.size(); }
  /// Where this piece starts in the original text (offsets_original().0).
  size_t originalStart() const { return shift_; }

  /// NormalizedString::transform_range over normalized bytes [start, end), which
  /// must lie on character boundaries; `initialOffset` old characters at the start
  /// of the range are removed before the first new one.
  void transformRange(size_t start, size_t end, const std::vector<Change>& dest, size_t initialOffset);
  void transform(const std::vector<Change>& dest, size_t initialOffset) {
    transformRange(0, text_.size(), dest, initialOffset);
  }

  /// Normalized bytes [start, end) as a piece of their own (NormalizedString::slice).
  NormalizedString slice(size_t start, size_t end) const;
  /// The original bytes of normalized bytes [start, end) of this piece, as the
  /// library's into_encoding computes a token's offsets (convert_offsets, then the
  /// piece's start added; an empty range stays empty at start + its position).
  Span originalRange(size_t start, size_t end) const;

  // The library's edits, with its change codes.
  void filter(const std::function<bool(char32_t)>& keep);
  void map(const std::function<char32_t(char32_t)>& f);
  void lowercase();
  void normalizeForm(uni::Form form);
  void prepend(std::string_view s);
  /// Each byte range of `matches` (ascending, disjoint) replaced by `content`
  /// (NormalizedString::replace: the new characters take the match's last alignment).
  void replaceMatches(const std::vector<std::pair<size_t, size_t>>& matches, std::string_view content);
  /// Leading and/or trailing White_Space removed (NormalizedString::lrstrip).
  void strip(bool left, bool right);

 private:
  Span alignAt(size_t i) const;

  std::string text_;
  std::vector<Span> align_;  // one per byte of text_, absolute original offsets
  size_t shift_ = 0;
};

/// The normalized text alone, for strings that have no place in the original text
/// (added tokens' normalized forms).
std::string normalizedText(const std::function<void(NormalizedString&)>& normalizer, std::string_view text);

}  // namespace attn::models
