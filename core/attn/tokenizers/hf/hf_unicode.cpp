#include "attn/tokenizers/hf/hf_unicode.h"

#include <fmt/format.h>
#include <unicode/brkiter.h>
#include <unicode/normalizer2.h>
#include <unicode/regex.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/ustring.h>
#include <unicode/utext.h>

#include <memory>

#include "attn/io/quote.h"
#include "attn/io/utf8.h"

namespace attn::models::uni {

std::vector<size_t> graphemeBoundaries(std::string_view text) {
  std::vector<size_t> out{0};
  if (text.empty()) return out;
  UErrorCode status = U_ZERO_ERROR;
  UText* ut = utext_openUTF8(nullptr, text.data(), static_cast<int64_t>(text.size()), &status);
  std::unique_ptr<icu::BreakIterator> it(
      icu::BreakIterator::createCharacterInstance(icu::Locale::getRoot(), status));
  if (U_SUCCESS(status) && it) {
    it->setText(ut, status);
    // UTF-8 UText: native indexes are byte offsets.
    for (int32_t b = it->next(); U_SUCCESS(status) && b != icu::BreakIterator::DONE; b = it->next())
      out.push_back(static_cast<size_t>(b));
  }
  utext_close(ut);
  if (out.back() != text.size()) out.push_back(text.size());  // ICU failed: the rest as one cluster
  return out;
}

bool isWhitespace(char32_t c) { return u_isUWhiteSpace(static_cast<UChar32>(c)); }

bool isOther(char32_t c) {
  switch (u_charType(static_cast<UChar32>(c))) {
    case U_CONTROL_CHAR: case U_FORMAT_CHAR: case U_UNASSIGNED: case U_PRIVATE_USE_CHAR: case U_SURROGATE:
      return true;
    default:
      return false;
  }
}

bool isPunctuation(char32_t c) {
  switch (u_charType(static_cast<UChar32>(c))) {
    case U_CONNECTOR_PUNCTUATION: case U_DASH_PUNCTUATION: case U_START_PUNCTUATION: case U_END_PUNCTUATION:
    case U_INITIAL_PUNCTUATION: case U_FINAL_PUNCTUATION: case U_OTHER_PUNCTUATION:
      return true;
    default:
      return false;
  }
}

bool isMarkNonspacing(char32_t c) { return u_charType(static_cast<UChar32>(c)) == U_NON_SPACING_MARK; }

bool isNumeric(char32_t c) {
  const auto t = u_charType(static_cast<UChar32>(c));
  return t == U_DECIMAL_DIGIT_NUMBER || t == U_LETTER_NUMBER || t == U_OTHER_NUMBER;
}

namespace {
bool isAscii(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}
}  // namespace

std::string normalize(std::string_view text, Form form) {
  if (isAscii(text)) return std::string(text);  // every form leaves ASCII unchanged
  UErrorCode st = U_ZERO_ERROR;
  const icu::Normalizer2* n = nullptr;
  switch (form) {
    case Form::Nfc: n = icu::Normalizer2::getNFCInstance(st); break;
    case Form::Nfd: n = icu::Normalizer2::getNFDInstance(st); break;
    case Form::Nfkc: n = icu::Normalizer2::getNFKCInstance(st); break;
    case Form::Nfkd: n = icu::Normalizer2::getNFKDInstance(st); break;
  }
  if (U_FAILURE(st) || !n) return std::string(text);
  const icu::UnicodeString in = icu::UnicodeString::fromUTF8(icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  const icu::UnicodeString out = n->normalize(in, st);
  if (U_FAILURE(st)) return std::string(text);
  std::string result;
  out.toUTF8String(result);
  return result;
}

std::string lowercase(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      out.push_back(b >= 'A' && b <= 'Z' ? static_cast<char>(b + 32) : static_cast<char>(b));
      ++i;
      continue;
    }
    UChar32 c = 0;
    int32_t at = static_cast<int32_t>(i);
    U8_NEXT(reinterpret_cast<const uint8_t*>(text.data()), at, static_cast<int32_t>(text.size()), c);
    UChar src[2];
    int32_t srcLen = 0;
    U16_APPEND_UNSAFE(src, srcLen, c);
    UChar dst[16];
    UErrorCode st = U_ZERO_ERROR;
    const int32_t n = u_strToLower(dst, 16, src, srcLen, "", &st);
    if (U_FAILURE(st) || n > 16) {
      out.append(text.substr(i, static_cast<size_t>(at) - i));
    } else {
      icu::UnicodeString(dst, n).toUTF8String(out);
    }
    i = static_cast<size_t>(at);
  }
  return out;
}

std::u32string decomposeChar(char32_t c, bool compatibility) {
  UErrorCode st = U_ZERO_ERROR;
  const icu::Normalizer2* n =
      compatibility ? icu::Normalizer2::getNFKDInstance(st) : icu::Normalizer2::getNFDInstance(st);
  if (U_FAILURE(st) || !n) return std::u32string(1, c);
  const icu::UnicodeString out = n->normalize(icu::UnicodeString(static_cast<UChar32>(c)), st);
  if (U_FAILURE(st)) return std::u32string(1, c);
  std::u32string result;
  for (int32_t i = 0; i < out.length();) {
    const UChar32 d = out.char32At(i);
    result.push_back(static_cast<char32_t>(d));
    i += U16_LENGTH(d);
  }
  return result;
}

uint8_t combiningClass(char32_t c) {
  UErrorCode st = U_ZERO_ERROR;
  const icu::Normalizer2* n = icu::Normalizer2::getNFCInstance(st);
  return U_FAILURE(st) || !n ? 0 : n->getCombiningClass(static_cast<UChar32>(c));
}

char32_t composePair(char32_t a, char32_t b) {
  UErrorCode st = U_ZERO_ERROR;
  const icu::Normalizer2* n = icu::Normalizer2::getNFCInstance(st);
  if (U_FAILURE(st) || !n) return 0;
  const UChar32 r = n->composePair(static_cast<UChar32>(a), static_cast<UChar32>(b));
  return r < 0 ? 0 : static_cast<char32_t>(r);
}

std::u32string lowercaseChar(char32_t c) {
  if (c < 0x80) return std::u32string(1, c >= 'A' && c <= 'Z' ? c + 32 : c);
  const std::string lowered = lowercase(utf32ToUtf8(std::u32string(1, c)));
  return utf8ToUtf32(lowered).value_or(std::u32string(1, c));
}

// ICU's steps (about a millisecond each) one find() may take before it gives up.
constexpr int32_t kRegexTimeLimit = 2000;

struct Regex::Impl {
  std::unique_ptr<icu::RegexPattern> pattern;
  std::string source, text;  // for RegexFailure's message
};

std::string regexFailureMessage(const RegexFailure& e, std::string_view textSource) {
  return fmt::format("{} on {}: no tokens, as the matches so far are not what the pattern defines", e.what(),
                     textSource);
}

Result<Regex> Regex::compile(std::string_view pattern, const std::string& source) {
  std::string rewritten;
  rewritten.reserve(pattern.size() + 32);
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\' && i + 1 < pattern.size()) {
      const char n = pattern[i + 1];
      if (n == 's') rewritten += "\\p{White_Space}";
      else if (n == 'S') rewritten += "\\P{White_Space}";
      else rewritten.append(pattern.substr(i, 2));
      ++i;
    } else {
      rewritten.push_back(pattern[i]);
    }
  }
  UErrorCode st = U_ZERO_ERROR;
  UParseError pe{};
  const icu::UnicodeString u =
      icu::UnicodeString::fromUTF8(icu::StringPiece(rewritten.data(), static_cast<int32_t>(rewritten.size())));
  std::unique_ptr<icu::RegexPattern> p(icu::RegexPattern::compile(u, 0, pe, st));
  if (U_FAILURE(st) || !p)
    return Error{fmt::format("{}: the regex {} does not compile ({})", source, quoteForMessage(pattern),
                             u_errorName(st))};
  auto impl = std::make_shared<Impl>();
  impl->pattern = std::move(p);
  impl->source = source;
  impl->text = std::string(pattern);
  Regex r;
  r.impl_ = std::move(impl);
  return r;
}

std::vector<std::pair<size_t, size_t>> Regex::findAll(std::string_view text) const {
  std::vector<std::pair<size_t, size_t>> out;
  if (!impl_ || text.empty()) return out;
  UErrorCode st = U_ZERO_ERROR;
  UText* ut = utext_openUTF8(nullptr, text.data(), static_cast<int64_t>(text.size()), &st);
  std::unique_ptr<icu::RegexMatcher> m(U_SUCCESS(st) ? impl_->pattern->matcher(st) : nullptr);
  if (U_FAILURE(st) || !m) {
    utext_close(ut);
    throw RegexFailure(fmt::format("{}: the regex {} cannot run ({})", impl_->source,
                                   quoteForMessage(impl_->text), u_errorName(st)));
  }
  m->reset(ut);
  // An untrusted pattern must not hang the program on catastrophic backtracking:
  // ICU's limit is in steps of roughly a millisecond, and a Hugging Face pattern
  // needs microseconds per match. ICU counts the steps from the matcher's last
  // reset, not per find(), so each search restarts the matcher at the previous
  // match's end (find(start) resets it): the limit then bounds one match, and a
  // long text of ordinary matches is never refused. As find() does, a search after
  // an empty match starts one code point later.
  m->setTimeLimit(kRegexTimeLimit, st);
  int64_t from = 0;
  const auto size = static_cast<int64_t>(text.size());
  while (U_SUCCESS(st) && from <= size && m->find(from, st)) {
    const int64_t s = m->start64(st);
    const int64_t e = m->end64(st);
    if (U_FAILURE(st) || s < 0 || e < s) break;
    out.emplace_back(static_cast<size_t>(s), static_cast<size_t>(e));
    from = e;
    if (e == s) {
      ++from;
      while (from < size && (static_cast<unsigned char>(text[static_cast<size_t>(from)]) & 0xC0) == 0x80)
        ++from;
    }
  }
  utext_close(ut);
  if (U_FAILURE(st)) {
    const char* why = st == U_REGEX_TIME_OUT         ? "the regex engine's time limit"
                      : st == U_REGEX_STACK_OVERFLOW ? "the regex engine's backtracking stack limit"
                                                     : "a regex engine error";
    throw RegexFailure(fmt::format("{}: the regex {} hit {} ({}) after {} matches", impl_->source,
                                   quoteForMessage(impl_->text), why, u_errorName(st), out.size()));
  }
  return out;
}

}  // namespace attn::models::uni
