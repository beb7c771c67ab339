#include "attn/tokenizers/hf/hf_normalizers.h"

#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "attn/io/quote.h"
#include "attn/io/utf8.h"
#include "attn/tokenizers/hf/hf_json.h"
#include "attn/tokenizers/hf/hf_unicode.h"
#include "attn/tokenizers/spm/precompiled_charsmap.h"

namespace attn::models {
namespace {

// The CJK Unified Ideograph blocks of the library's BertNormalizer::is_chinese_char
// (from BERT's original tokenization.py): ideographs only, not kana or Hangul.
bool isChineseChar(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool isControlForBert(char32_t c) { return c == 0 || c == 0xFFFD || uni::isOther(c); }

bool isBertWhitespace(char32_t c) { return c == '\t' || c == '\n' || c == '\r' || uni::isWhitespace(c); }

void stripAccents(NormalizedString& n) {
  n.filter([](char32_t c) { return !uni::isMarkNonspacing(c); });
}

/// Non-overlapping occurrences of `from`, left to right.
std::vector<std::pair<size_t, size_t>> literalMatches(std::string_view text, std::string_view from) {
  std::vector<std::pair<size_t, size_t>> out;
  if (from.empty()) return out;
  for (size_t at = text.find(from); at != std::string_view::npos; at = text.find(from, at + from.size()))
    out.emplace_back(at, at + from.size());
  return out;
}

// precompiled.rs replace(): the new part's characters replace the old part's; extra
// ones are inserted (+1 on the last), missing ones removed (on the last change so far).
void appendReplacement(std::vector<NormalizedString::Change>& dest, std::string_view oldPart,
                       std::string_view newPart) {
  const std::u32string o = utf8ToUtf32(oldPart).value_or(std::u32string()),
                       n = utf8ToUtf32(newPart).value_or(std::u32string());
  const long diff = static_cast<long>(n.size()) - static_cast<long>(o.size());
  for (char32_t c : n) dest.push_back({c, 0});
  if (diff > 0)
    for (long k = 0; k < diff; ++k) dest[dest.size() - 1 - static_cast<size_t>(k)].change = 1;
  else if (diff < 0 && !dest.empty())
    dest.back().change += static_cast<int>(diff);
}

/// Standard base64 (RFC 4648 section 4) with padding; nullopt on any other character.
std::optional<std::string> decodeBase64(std::string_view in) {
  auto sextet = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  while (!in.empty() && in.back() == '=') in.remove_suffix(1);
  std::string out;
  out.reserve(in.size() / 4 * 3 + 3);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    const int v = sextet(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

// The library's Precompiled normalizer (normalizers/precompiled.rs): per grapheme
// cluster shorter than 6 bytes, the rule that is its shortest prefix replaces the
// whole cluster; otherwise each character on its own.
Result<Normalizer> precompiledNormalizer(const nlohmann::json& j, const std::string& source) {
  const auto field = j.find("precompiled_charsmap");
  if (field == j.end() || field->is_null()) return Normalizer{};
  if (!field->is_string())
    return Error{source + ": Precompiled \"precompiled_charsmap\" is not a base64 string"};
  const auto blob = decodeBase64(field->get<std::string>());
  if (!blob) return Error{source + ": Precompiled \"precompiled_charsmap\" is not base64"};
  if (blob->empty()) return Normalizer{};
  auto map = PrecompiledCharsmap::parse(*blob, source);
  if (!map) return map.error();
  if (!isValidUtf8(map->strings()))
    return Error{source + ": precompiled charsmap: its replacements are not UTF-8"};
  auto shared = std::make_shared<const PrecompiledCharsmap>(std::move(*map));
  return Normalizer([shared](NormalizedString& n) {
    const std::string text = n.get();
    std::vector<NormalizedString::Change> dest;
    bool modified = false;
    const std::vector<size_t> cuts = uni::graphemeBoundaries(text);
    for (size_t g = 0; g + 1 < cuts.size(); ++g) {
      const std::string_view cluster = std::string_view(text).substr(cuts[g], cuts[g + 1] - cuts[g]);
      if (cluster.size() < 6)
        if (const auto r = shared->shortestPrefix(cluster)) {
          modified = true;
          appendReplacement(dest, cluster, *r);
          continue;
        }
      for (size_t i = 0; i < cluster.size();) {
        const auto b = static_cast<unsigned char>(cluster[i]);
        const size_t len = std::min<size_t>(b < 0x80             ? 1
                                            : (b & 0xE0) == 0xC0 ? 2
                                            : (b & 0xF0) == 0xE0 ? 3
                                                                 : 4,
                                            cluster.size() - i);
        const std::string_view ch = cluster.substr(i, len);
        if (const auto r = shared->shortestPrefix(ch)) {
          modified = true;
          appendReplacement(dest, ch, *r);
        } else {
          for (char32_t c : utf8ToUtf32(ch).value_or(std::u32string())) dest.push_back({c, 0});
        }
        i += len;
      }
    }
    if (modified) n.transform(dest, 0);
  });
}

}  // namespace

Normalizer bertNormalizer(bool cleanText, bool handleChineseChars, bool strip, bool lower) {
  return [=](NormalizedString& n) {
    if (cleanText) {
      // \t \n \r are controls the library counts as whitespace, not removed.
      n.filter([](char32_t c) { return isBertWhitespace(c) || !isControlForBert(c); });
      n.map([](char32_t c) { return isBertWhitespace(c) ? U' ' : c; });
    }
    if (handleChineseChars) {
      std::vector<NormalizedString::Change> dest;
      for (char32_t c : utf8ToUtf32(n.get()).value_or(std::u32string())) {
        if (isChineseChar(c))
          dest.insert(dest.end(), {{U' ', 0}, {c, 1}, {U' ', 1}});
        else
          dest.push_back({c, 0});
      }
      n.transform(dest, 0);
    }
    if (strip) {
      n.normalizeForm(uni::Form::Nfd);
      stripAccents(n);
    }
    if (lower) n.lowercase();
  };
}

Result<Normalizer> parseNormalizer(const nlohmann::json& j, const std::string& source, int depth) {
  if (j.is_null()) return Normalizer{};
  if (!j.is_object()) return Error{source + ": \"normalizer\" is not an object"};
  const std::string type = hfjson::str(j, "type");
  if (type == "BertNormalizer") {
    const bool lower = hfjson::boolean(j, "lowercase", true);
    const auto sa = j.find("strip_accents");
    const bool strip = (sa == j.end() || sa->is_null()) ? lower : sa->is_boolean() && sa->get<bool>();
    return bertNormalizer(hfjson::boolean(j, "clean_text", true), hfjson::boolean(j, "handle_chinese_chars", true),
                          strip, lower);
  }
  for (const auto& [name, form] : {std::pair{"NFC", uni::Form::Nfc}, std::pair{"NFD", uni::Form::Nfd},
                                   std::pair{"NFKC", uni::Form::Nfkc}, std::pair{"NFKD", uni::Form::Nfkd}})
    if (type == name) return Normalizer([form = form](NormalizedString& n) { n.normalizeForm(form); });
  if (type == "Lowercase") return Normalizer([](NormalizedString& n) { n.lowercase(); });
  if (type == "StripAccents") return Normalizer([](NormalizedString& n) { stripAccents(n); });
  if (type == "Strip") {
    const bool left = hfjson::boolean(j, "strip_left", true), right = hfjson::boolean(j, "strip_right", true);
    return Normalizer([=](NormalizedString& n) { n.strip(left, right); });
  }
  if (type == "Prepend") {
    const std::string p = hfjson::str(j, "prepend");
    return Normalizer([p](NormalizedString& n) { n.prepend(p); });
  }
  if (type == "Replace") {
    const std::string content = hfjson::str(j, "content");
    const auto pat = j.find("pattern");
    if (pat == j.end() || !pat->is_object()) return Error{source + ": Replace normalizer without a \"pattern\""};
    if (pat->contains("String") && (*pat)["String"].is_string()) {
      const std::string from = (*pat)["String"].get<std::string>();
      return Normalizer(
          [=](NormalizedString& n) { n.replaceMatches(literalMatches(n.get(), from), content); });
    }
    if (pat->contains("Regex") && (*pat)["Regex"].is_string()) {
      auto re = uni::Regex::compile((*pat)["Regex"].get<std::string>(), source);
      if (!re) return re.error();
      return Normalizer(
          [re = *re, content](NormalizedString& n) { n.replaceMatches(re.findAll(n.get()), content); });
    }
    return Error{source + ": Replace normalizer pattern is neither a String nor a Regex"};
  }
  if (type == "Precompiled") return precompiledNormalizer(j, source);
  if (type == "Sequence") {
    const auto list = j.find("normalizers");
    if (list == j.end() || !list->is_array()) return Error{source + ": Sequence normalizer without \"normalizers\""};
    if (depth >= hfjson::kMaxSequenceDepth)
      return Error{fmt::format("{}: Sequence normalizers nested deeper than {} levels", source,
                               hfjson::kMaxSequenceDepth)};
    std::vector<Normalizer> parts;
    for (const auto& item : *list) {
      auto n = parseNormalizer(item, source, depth + 1);
      if (!n) return n.error();
      if (*n) parts.push_back(std::move(*n));
    }
    return Normalizer([parts](NormalizedString& n) {
      for (const auto& part : parts) part(n);
    });
  }
  return Error{fmt::format("{}: unsupported normalizer type {}", source, quoteForMessage(type))};
}

}  // namespace attn::models
