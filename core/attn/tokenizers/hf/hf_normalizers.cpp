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

template <class Keep>
std::string filterChars(std::string_view text, Keep keep) {
  const std::u32string in = utf8ToUtf32(text).value_or(std::u32string());
  std::u32string out;
  out.reserve(in.size());
  for (char32_t c : in)
    if (keep(c)) out.push_back(c);
  return utf32ToUtf8(out);
}

std::string stripAccents(std::string_view text) {
  return filterChars(text, [](char32_t c) { return !uni::isMarkNonspacing(c); });
}

std::string replaceAll(std::string_view text, std::string_view from, std::string_view to) {
  if (from.empty()) return std::string(text);
  std::string out;
  size_t i = 0;
  while (true) {
    const size_t at = text.find(from, i);
    if (at == std::string_view::npos) break;
    out.append(text.substr(i, at - i));
    out.append(to);
    i = at + from.size();
  }
  out.append(text.substr(i));
  return out;
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
  return Normalizer([shared](std::string_view text) {
    std::string out;
    out.reserve(text.size());
    const std::vector<size_t> cuts = uni::graphemeBoundaries(text);
    for (size_t g = 0; g + 1 < cuts.size(); ++g) {
      const std::string_view cluster = text.substr(cuts[g], cuts[g + 1] - cuts[g]);
      if (cluster.size() < 6)
        if (const auto r = shared->shortestPrefix(cluster)) {
          out.append(*r);
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
        const auto r = shared->shortestPrefix(ch);
        out.append(r ? *r : ch);
        i += len;
      }
    }
    return out;
  });
}

}  // namespace

Normalizer bertNormalizer(bool cleanText, bool handleChineseChars, bool strip, bool lower) {
  return [=](std::string_view text) {
    const std::u32string in = utf8ToUtf32(text).value_or(std::u32string());
    std::u32string s;
    s.reserve(in.size());
    for (char32_t c : in) {
      if (cleanText) {
        // \t \n \r are controls the library counts as whitespace, not removed.
        const bool ws = c == '\t' || c == '\n' || c == '\r' || uni::isWhitespace(c);
        if (!ws && (c == 0 || c == 0xFFFD || uni::isOther(c))) continue;
        if (ws) c = ' ';
      }
      if (handleChineseChars && isChineseChar(c)) {
        s.push_back(' ');
        s.push_back(c);
        s.push_back(' ');
      } else {
        s.push_back(c);
      }
    }
    std::string out = utf32ToUtf8(s);
    if (strip) out = stripAccents(uni::normalize(out, uni::Form::Nfd));
    if (lower) out = uni::lowercase(out);
    return out;
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
  if (type == "NFC") return Normalizer([](std::string_view t) { return uni::normalize(t, uni::Form::Nfc); });
  if (type == "NFD") return Normalizer([](std::string_view t) { return uni::normalize(t, uni::Form::Nfd); });
  if (type == "NFKC") return Normalizer([](std::string_view t) { return uni::normalize(t, uni::Form::Nfkc); });
  if (type == "NFKD") return Normalizer([](std::string_view t) { return uni::normalize(t, uni::Form::Nfkd); });
  if (type == "Lowercase") return Normalizer([](std::string_view t) { return uni::lowercase(t); });
  if (type == "StripAccents") return Normalizer([](std::string_view t) { return stripAccents(t); });
  if (type == "Strip") {
    const bool left = hfjson::boolean(j, "strip_left", true), right = hfjson::boolean(j, "strip_right", true);
    return Normalizer([=](std::string_view t) {
      std::u32string s = utf8ToUtf32(t).value_or(std::u32string());
      size_t b = 0, e = s.size();
      if (left)
        while (b < e && uni::isWhitespace(s[b])) ++b;
      if (right)
        while (e > b && uni::isWhitespace(s[e - 1])) --e;
      return utf32ToUtf8(std::u32string_view(s).substr(b, e - b));
    });
  }
  if (type == "Prepend") {
    const std::string p = hfjson::str(j, "prepend");
    return Normalizer([p](std::string_view t) { return t.empty() ? std::string() : p + std::string(t); });
  }
  if (type == "Replace") {
    const std::string content = hfjson::str(j, "content");
    const auto pat = j.find("pattern");
    if (pat == j.end() || !pat->is_object()) return Error{source + ": Replace normalizer without a \"pattern\""};
    if (pat->contains("String") && (*pat)["String"].is_string()) {
      const std::string from = (*pat)["String"].get<std::string>();
      return Normalizer([=](std::string_view t) { return replaceAll(t, from, content); });
    }
    if (pat->contains("Regex") && (*pat)["Regex"].is_string()) {
      auto re = uni::Regex::compile((*pat)["Regex"].get<std::string>(), source);
      if (!re) return re.error();
      return Normalizer([re = *re, content](std::string_view t) {
        std::string out;
        size_t prev = 0;
        for (const auto& [s, e] : re.findAll(t)) {
          out.append(t.substr(prev, s - prev));
          out.append(content);
          prev = e;
        }
        out.append(t.substr(prev));
        return out;
      });
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
    return Normalizer([parts](std::string_view t) {
      std::string s(t);
      for (const auto& n : parts) s = n(s);
      return s;
    });
  }
  return Error{fmt::format("{}: unsupported normalizer type {}", source, quoteForMessage(type))};
}

}  // namespace attn::models
