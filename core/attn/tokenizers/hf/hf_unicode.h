#pragma once
// Unicode for the Hugging Face tokenizer pipeline, through ICU: the `tokenizers`
// library (Rust) uses the Unicode general categories, normalization forms and
// Oniguruma regexes with \p{..} classes; ICU gives all three from Debian's
// well-kept tables instead of hand-written ones.
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attn/status.h"

namespace attn::models::uni {

/// Rust's char::is_whitespace (the White_Space property).
bool isWhitespace(char32_t c);
/// Unicode general category C* other than surrogates' absence in UTF-8: Cc, Cf, Cn, Co, Cs.
bool isOther(char32_t c);
/// Unicode general categories Pc, Pd, Ps, Pe, Pi, Pf, Po.
bool isPunctuation(char32_t c);
/// Mn (what BERT's accent stripping drops after NFD).
bool isMarkNonspacing(char32_t c);
/// Rust's char::is_numeric (Nd, Nl, No).
bool isNumeric(char32_t c);

enum class Form { Nfc, Nfd, Nfkc, Nfkd };
/// `text` (valid UTF-8) in the normalization form.
std::string normalize(std::string_view text, Form form);
/// Every character lowercased on its own (full case mapping, no context), as
/// NormalizedString::lowercase does: "Σ" always becomes "σ".
std::string lowercase(std::string_view text);

/// The pieces of one character's normalization, for the aligned forms of
/// NormalizedString (the library's unicode-normalization-alignments crate works
/// character by character): the full canonical (or compatibility) decomposition of
/// `c`, its canonical combining class, the primary composite of `a` + `b` (0 when
/// none), and `c` lowercased on its own.
std::u32string decomposeChar(char32_t c, bool compatibility);
uint8_t combiningClass(char32_t c);
char32_t composePair(char32_t a, char32_t b);
std::u32string lowercaseChar(char32_t c);

/// Byte offsets of the extended grapheme cluster boundaries of valid UTF-8 text
/// (UAX #29, ICU's character break iterator), 0 and text.size() included.
std::vector<size_t> graphemeBoundaries(std::string_view text);

/// A regex in the syntax tokenizer.json carries (Oniguruma's, as the library
/// compiles it), run with ICU. \s and \S are rewritten to the White_Space
/// property, which is what Oniguruma's Unicode \s means (ICU's omits U+000B, U+0085).
/// Thrown by Regex::findAll when ICU gives up on a text (its time limit on
/// catastrophic backtracking, or its backtracking stack): the matches found so
/// far are not what the pattern defines, so there are no tokens to return. The
/// message names the tokenizer file and the pattern; HfTokenizer::encode turns it
/// into an Error that also names the text (regexFailureMessage).
class RegexFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The one-line error for a RegexFailure on the text called `textSource`.
std::string regexFailureMessage(const RegexFailure& e, std::string_view textSource);

class Regex {
 public:
  /// Errors name `source` and the pattern.
  static Result<Regex> compile(std::string_view pattern, const std::string& source);
  /// Byte ranges [start, end) of the successive non-overlapping matches in `text`
  /// (valid UTF-8). Throws RegexFailure when the engine gives up.
  std::vector<std::pair<size_t, size_t>> findAll(std::string_view text) const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};

}  // namespace attn::models::uni
