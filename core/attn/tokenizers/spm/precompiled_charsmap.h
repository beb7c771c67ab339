#pragma once
// SentencePiece's precompiled normalization rules (normalizer.cc,
// Normalizer::EncodePrecompiledCharsMap): <trie size: u32 LE><darts-clone double
// array of u32 units><NUL-separated replacement strings>. The same blob is a
// SentencePiece model's normalizer_spec.precompiled_charsmap and, base64, a
// tokenizer.json "Precompiled" normalizer's precompiled_charsmap.
//
// Neither libsentencepiece nor the reference readers bound-check the double
// array, so a blob from a file is walked once here: every unit a lookup can
// reach lies inside the array, every replacement is NUL-terminated inside the
// strings, and no path passes more results than libsentencepiece's fixed result
// buffer holds (Normalizer::NormalizePrefix reads as many as the search counts).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/status.h"

namespace attn::models {

class PrecompiledCharsmap {
 public:
  /// libsentencepiece's Normalizer::kMaxTrieResultsSize: the most prefixes one lookup returns.
  static constexpr int kMaxResults = 32;

  /// Checks and copies a blob; errors name `source` and the fault.
  static Result<PrecompiledCharsmap> parse(std::string_view blob, const std::string& source);

  /// The replacement for the longest rule that is a prefix of `text`, and that
  /// rule's length in bytes; {"", 0} when no rule matches.
  std::pair<std::string_view, size_t> longestPrefix(std::string_view text) const;

  /// The replacement for the shortest rule that is a prefix of `text` (the
  /// first result of the library's common prefix search, which stops at a NUL
  /// byte), as the `tokenizers` library's Precompiled::transform; nullopt when none.
  std::optional<std::string_view> shortestPrefix(std::string_view text) const;

  size_t unitCount() const { return units_.size(); }
  /// The NUL-separated replacements.
  const std::string& strings() const { return normalized_; }

 private:
  std::vector<uint32_t> units_;
  std::string normalized_;
};

}  // namespace attn::models
