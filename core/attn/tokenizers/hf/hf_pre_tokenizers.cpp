#include "attn/tokenizers/hf/hf_pre_tokenizers.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <algorithm>
#include <utility>

#include "attn/io/utf8.h"
#include "attn/tokenizers/hf/hf_json.h"
#include "attn/tokenizers/hf/hf_unicode.h"
#include "attn/io/quote.h"

namespace attn::models {
namespace {

enum class Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

struct Segment {
  size_t start, end;
  bool isMatch;
};

// The library's NormalizedString::split: `segments` cover the text; the
// behaviour decides what becomes of the matched ones.
std::vector<PreToken> applyBehavior(const PreToken& piece, std::vector<Segment> segments, Behavior behavior,
                                    bool invert) {
  if (invert)
    for (auto& s : segments) s.isMatch = !s.isMatch;
  struct Out {
    size_t start, end;
    bool remove;
  };
  std::vector<Out> out;
  bool previous = false;
  switch (behavior) {
    case Behavior::Isolated:
      for (const auto& s : segments) out.push_back({s.start, s.end, false});
      break;
    case Behavior::Removed:
      for (const auto& s : segments) out.push_back({s.start, s.end, s.isMatch});
      break;
    case Behavior::Contiguous:
      for (const auto& s : segments) {
        if (s.isMatch == previous && !out.empty()) out.back().end = s.end;
        else out.push_back({s.start, s.end, false});
        previous = s.isMatch;
      }
      break;
    case Behavior::MergedWithPrevious:
      for (const auto& s : segments) {
        if (s.isMatch && !previous && !out.empty()) out.back().end = s.end;
        else out.push_back({s.start, s.end, false});
        previous = s.isMatch;
      }
      break;
    case Behavior::MergedWithNext:
      for (auto it = segments.rbegin(); it != segments.rend(); ++it) {
        if (it->isMatch && !previous && !out.empty()) out.back().start = it->start;
        else out.push_back({it->start, it->end, false});
        previous = it->isMatch;
      }
      std::reverse(out.begin(), out.end());
      break;
  }
  std::vector<PreToken> result;
  for (const auto& o : out) {
    if (o.remove || o.start == o.end) continue;
    result.push_back({piece.text.slice(o.start, o.end), piece.atStart && o.start == 0});
  }
  return result;
}

std::vector<Segment> regexSegments(const uni::Regex& re, const std::string& text) {
  std::vector<Segment> segs;
  if (text.empty()) return {{0, 0, false}};
  size_t prev = 0;
  for (const auto& [s, e] : re.findAll(text)) {
    if (prev != s) segs.push_back({prev, s, false});
    segs.push_back({s, e, true});
    prev = e;
  }
  if (prev != text.size()) segs.push_back({prev, text.size(), false});
  return segs;
}

template <class Pred>
std::vector<Segment> charSegments(const std::string& text, Pred isMatch) {
  std::vector<Segment> segs;
  size_t prev = 0, i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    const size_t len = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : 4;
    const auto cp = utf8ToUtf32(std::string_view(text).substr(i, len));
    if (cp && cp->size() == 1 && isMatch((*cp)[0])) {
      if (prev != i) segs.push_back({prev, i, false});
      segs.push_back({i, i + len, true});
      prev = i + len;
    }
    i += len;
  }
  if (prev != text.size()) segs.push_back({prev, text.size(), false});
  return segs;
}

bool isBertPunctuation(char32_t c) {
  const bool asciiPunct = (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') ||
                          (c >= '{' && c <= '~');
  return asciiPunct || uni::isPunctuation(c);
}

Result<Behavior> parseBehavior(const nlohmann::json& j, const std::string& source) {
  const std::string b = hfjson::str(j, "behavior", "Isolated");
  if (b == "Removed") return Behavior::Removed;
  if (b == "Isolated") return Behavior::Isolated;
  if (b == "MergedWithPrevious") return Behavior::MergedWithPrevious;
  if (b == "MergedWithNext") return Behavior::MergedWithNext;
  if (b == "Contiguous") return Behavior::Contiguous;
  return Error{fmt::format("{}: unknown split behavior {}", source, quoteForMessage(b))};
}

// Each byte becomes its printable stand-in; a character's later bytes are
// insertions, so every stand-in points at the whole character (byte_level.rs).
void mapBytes(NormalizedString& n) {
  static const std::vector<char32_t> table = [] {
    std::vector<char32_t> t;
    for (const std::string& s : byteLevelAlphabet()) t.push_back((*utf8ToUtf32(s))[0]);
    return t;
  }();
  const std::string& text = n.get();
  std::vector<NormalizedString::Change> dest;
  dest.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    dest.push_back({table[b], (b & 0xC0) == 0x80 ? 1 : 0});
  }
  n.transform(dest, 0);
}

// GPT-2's pattern (Radford et al. 2019, encoder.py), as the library's ByteLevel uses it.
const uni::Regex& gpt2Regex() {
  static const uni::Regex re =
      *uni::Regex::compile(R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)", "GPT-2");
  return re;
}

}  // namespace

const std::vector<std::string>& byteLevelAlphabet() {
  static const std::vector<std::string> table = [] {
    std::vector<std::string> t(256);
    int n = 0;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      const char32_t cp = printable ? static_cast<char32_t>(b) : static_cast<char32_t>(256 + n++);
      t[static_cast<size_t>(b)] = utf32ToUtf8(std::u32string(1, cp));
    }
    return t;
  }();
  return table;
}

std::vector<std::string> gpt2Split(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& seg : regexSegments(gpt2Regex(), text))
    if (seg.end > seg.start) out.push_back(text.substr(seg.start, seg.end - seg.start));
  return out;
}

PreTokenizer bertPreTokenizer() {
  return [](const PreToken& p) {
    std::vector<PreToken> out;
    for (const auto& w :
         applyBehavior(p, charSegments(p.text.get(), uni::isWhitespace), Behavior::Removed, false))
      for (auto& t :
           applyBehavior(w, charSegments(w.text.get(), isBertPunctuation), Behavior::Isolated, false))
        out.push_back(std::move(t));
    return out;
  };
}

PreTokenizer byteLevelPreTokenizer(bool addPrefixSpace, bool useRegex) {
  return [=](const PreToken& p) {
    PreToken q = p;
    if (addPrefixSpace && !q.text.get().starts_with(' ')) q.text.prepend(" ");
    std::vector<PreToken> parts =
        useRegex ? applyBehavior(q, regexSegments(gpt2Regex(), q.text.get()), Behavior::Isolated, false)
                 : std::vector<PreToken>{q};
    for (auto& t : parts) mapBytes(t.text);
    return parts;
  };
}

namespace {

// Split: a regex or a literal string, with one of the split behaviours.
Result<PreTokenizer> splitPreTokenizer(const nlohmann::json& j, const std::string& source) {
  auto b = parseBehavior(j, source);
  if (!b) return b.error();
  const bool invert = hfjson::boolean(j, "invert", false);
  const auto pat = j.find("pattern");
  if (pat == j.end() || !pat->is_object())
    return Error{source + ": Split pre-tokenizer without a \"pattern\""};
  if (hfjson::hasString(*pat, "Regex")) {
    auto re = uni::Regex::compile((*pat)["Regex"].get<std::string>(), source);
    if (!re) return re.error();
    return PreTokenizer([re = *re, b = *b, invert](const PreToken& p) {
      return applyBehavior(p, regexSegments(re, p.text.get()), b, invert);
    });
  }
  if (hfjson::hasString(*pat, "String")) {
    const std::string s = (*pat)["String"].get<std::string>();
    return PreTokenizer([s, b = *b, invert](const PreToken& p) {
      const std::string& text = p.text.get();
      std::vector<Segment> segs;
      size_t prev = 0;
      if (!s.empty())
        for (size_t at = text.find(s); at != std::string::npos; at = text.find(s, at + s.size())) {
          if (prev != at) segs.push_back({prev, at, false});
          segs.push_back({at, at + s.size(), true});
          prev = at + s.size();
        }
      if (prev != text.size() || segs.empty()) segs.push_back({prev, text.size(), false});
      return applyBehavior(p, std::move(segs), b, invert);
    });
  }
  return Error{source + ": Split pattern is neither a String nor a Regex"};
}

// Metaspace: spaces become the replacement (U+2581 by default), prepended per prepend_scheme.
Result<PreTokenizer> metaspacePreTokenizer(const nlohmann::json& j, const std::string& source) {
  const std::string rep = hfjson::str(j, "replacement", "\xE2\x96\x81");
  if (rep.empty()) return Error{source + ": Metaspace with an empty \"replacement\""};
  std::string scheme = hfjson::str(j, "prepend_scheme", "");
  if (scheme.empty()) scheme = hfjson::boolean(j, "add_prefix_space", true) ? "always" : "never";
  if (scheme != "always" && scheme != "first" && scheme != "never")
    return Error{fmt::format("{}: unknown Metaspace prepend_scheme {}", source, quoteForMessage(scheme))};
  const bool split = hfjson::boolean(j, "split", true);
  return PreTokenizer([rep, scheme, split](const PreToken& p) {
    PreToken q = p;
    std::vector<std::pair<size_t, size_t>> spaces;
    for (size_t i = 0; i < q.text.get().size(); ++i)
      if (q.text.get()[i] == ' ') spaces.emplace_back(i, i + 1);
    q.text.replaceMatches(spaces, rep);
    if (!q.text.get().starts_with(rep) && (scheme == "always" || (scheme == "first" && q.atStart)))
      q.text.prepend(rep);
    if (!split) return std::vector<PreToken>{q};
    const std::string& text = q.text.get();
    std::vector<Segment> segs;
    size_t prev = 0;
    for (size_t at = text.find(rep); at != std::string::npos; at = text.find(rep, at + rep.size())) {
      if (prev != at) segs.push_back({prev, at, false});
      segs.push_back({at, at + rep.size(), true});
      prev = at + rep.size();
    }
    if (prev != text.size()) segs.push_back({prev, text.size(), false});
    return applyBehavior(q, std::move(segs), Behavior::MergedWithNext, false);
  });
}

// Sequence: each pre-tokenizer applied to every piece the one before produced.
Result<PreTokenizer> sequencePreTokenizer(const nlohmann::json& j, const std::string& source, int depth) {
  const auto list = j.find("pretokenizers");
  if (list == j.end() || !list->is_array())
    return Error{source + ": Sequence pre-tokenizer without \"pretokenizers\""};
  if (depth >= hfjson::kMaxSequenceDepth)
    return Error{fmt::format("{}: Sequence pre-tokenizers nested deeper than {} levels", source,
                             hfjson::kMaxSequenceDepth)};
  std::vector<PreTokenizer> parts;
  for (const auto& item : *list) {
    auto p = parsePreTokenizer(item, source, depth + 1);
    if (!p) return p.error();
    if (*p) parts.push_back(std::move(*p));
  }
  return PreTokenizer([parts](const PreToken& p) {
    std::vector<PreToken> cur{p};
    for (const auto& pt : parts) {
      std::vector<PreToken> next;
      for (const auto& c : cur)
        for (auto& t : pt(c))
          if (!t.text.empty()) next.push_back(std::move(t));
      cur = std::move(next);
    }
    return cur;
  });
}

}  // namespace

Result<PreTokenizer> parsePreTokenizer(const nlohmann::json& j, const std::string& source, int depth) {
  if (j.is_null()) return PreTokenizer{};
  if (!j.is_object()) return Error{source + ": \"pre_tokenizer\" is not an object"};
  const std::string type = hfjson::str(j, "type");
  if (type == "BertPreTokenizer") return bertPreTokenizer();
  if (type == "ByteLevel")
    return byteLevelPreTokenizer(hfjson::boolean(j, "add_prefix_space", true), hfjson::boolean(j, "use_regex", true));
  if (type == "Whitespace") {
    static const uni::Regex re = *uni::Regex::compile(R"(\w+|[^\w\s]+)", "Whitespace");
    return PreTokenizer([](const PreToken& p) {
      return applyBehavior(p, regexSegments(re, p.text.get()), Behavior::Removed, true);
    });
  }
  if (type == "WhitespaceSplit")
    return PreTokenizer([](const PreToken& p) {
      return applyBehavior(p, charSegments(p.text.get(), uni::isWhitespace), Behavior::Removed, false);
    });
  if (type == "Punctuation") {
    auto b = parseBehavior(j, source);
    if (!b) return b.error();
    return PreTokenizer([b = *b](const PreToken& p) {
      return applyBehavior(p, charSegments(p.text.get(), isBertPunctuation), b, false);
    });
  }
  if (type == "Digits") {
    const Behavior b = hfjson::boolean(j, "individual_digits", false) ? Behavior::Isolated : Behavior::Contiguous;
    return PreTokenizer([b](const PreToken& p) {
      return applyBehavior(p, charSegments(p.text.get(), uni::isNumeric), b, false);
    });
  }
  if (type == "CharDelimiterSplit") {
    const auto d = utf8ToUtf32(hfjson::str(j, "delimiter"));
    if (!d || d->size() != 1) return Error{source + ": CharDelimiterSplit needs a one-character \"delimiter\""};
    const char32_t delim = (*d)[0];
    return PreTokenizer([delim](const PreToken& p) {
      return applyBehavior(p, charSegments(p.text.get(), [delim](char32_t c) { return c == delim; }),
                           Behavior::Removed, false);
    });
  }
  if (type == "Split") return splitPreTokenizer(j, source);
  if (type == "Metaspace") return metaspacePreTokenizer(j, source);
  if (type == "Sequence") return sequencePreTokenizer(j, source, depth);
  return Error{fmt::format("{}: unsupported pre-tokenizer type {}", source, quoteForMessage(type))};
}

}  // namespace attn::models
