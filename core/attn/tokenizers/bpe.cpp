#include "attn/tokenizers/bpe.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "attn/io/text_file.h"
#include "attn/io/utf8.h"
#include "attn/quote.h"
#include "attn/tokenizers/unicode_class.h"

namespace attn {
namespace {

enum class Cls { Space, Letter, Digit, Other };
Cls classify(char32_t c) {
  if (unicode::isSpace(c)) return Cls::Space;
  if (unicode::isDigit(c)) return Cls::Digit;
  if (unicode::isPunctOrSymbol(c) || c < 0x20) return Cls::Other;
  return Cls::Letter;
}

// The UTF-8 bytes of one code point of the mapped alphabet, split into symbols.
std::vector<std::string> splitCodePoints(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
    out.push_back(s.substr(i, len));
    i += len;
  }
  return out;
}

}  // namespace

const std::vector<std::string>& BpeTokenizer::byteToUnicode() {
  // Printable Latin-1 bytes map to themselves; the other 68 bytes to U+0100 onwards.
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

// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
std::vector<std::string> BpeTokenizer::preTokenize(std::string_view text) {
  std::vector<std::string> out;
  const auto decoded = utf8ToUtf32(text);
  if (!decoded) return out;
  const std::u32string& s = *decoded;
  const size_t n = s.size();
  auto runOf = [&](size_t from, Cls c) {
    while (from < n && classify(s[from]) == c) ++from;
    return from;
  };
  size_t i = 0;
  while (i < n) {
    size_t end = i;
    if (s[i] == '\'') {
      for (const char32_t* suf : {U"s", U"t", U"re", U"ve", U"m", U"ll", U"d"}) {
        const std::u32string_view v(suf);
        if (i + 1 + v.size() <= n && s.compare(i + 1, v.size(), v) == 0) {
          end = i + 1 + v.size();
          break;
        }
      }
    }
    if (end == i) {
      const size_t body = (s[i] == ' ' && i + 1 < n && classify(s[i + 1]) != Cls::Space) ? i + 1 : i;
      const Cls c = classify(s[body]);
      if (c != Cls::Space) {
        end = runOf(body, c);
      } else {
        const size_t k = runOf(i, Cls::Space);
        // \s+(?!\S): leave the last space of a run to lead the next word.
        end = (k == n || k - i == 1) ? k : k - 1;
      }
    }
    out.push_back(utf32ToUtf8(s.substr(i, end - i)));
    i = end;
  }
  return out;
}

std::vector<std::string> BpeTokenizer::bpe(const std::string& mappedWord) const {
  std::vector<std::string> word = splitCodePoints(mappedWord);
  while (word.size() > 1) {
    int best = -1;
    std::pair<std::string, std::string> bestPair;
    for (size_t i = 0; i + 1 < word.size(); ++i) {
      auto it = ranks_.find({word[i], word[i + 1]});
      if (it != ranks_.end() && (best < 0 || it->second < best)) {
        best = it->second;
        bestPair = it->first;
      }
    }
    if (best < 0) break;
    std::vector<std::string> merged;
    for (size_t i = 0; i < word.size();) {
      if (i + 1 < word.size() && word[i] == bestPair.first && word[i + 1] == bestPair.second) {
        merged.push_back(word[i] + word[i + 1]);
        i += 2;
      } else {
        merged.push_back(word[i++]);
      }
    }
    word = std::move(merged);
  }
  return word;
}

std::vector<std::string> BpeTokenizer::tokenize(std::string_view text) const {
  std::vector<std::string> out;
  const auto& table = byteToUnicode();
  for (const std::string& piece : preTokenize(text)) {
    std::string mapped;
    for (unsigned char b : piece) mapped += table[b];
    for (auto& t : bpe(mapped)) out.push_back(std::move(t));
  }
  return out;
}

Result<BpeTokenizer> BpeTokenizer::fromMerges(std::vector<std::pair<std::string, std::string>> merges,
                                              std::unordered_map<std::string, int> vocab,
                                              const std::string& source) {
  if (merges.empty() && vocab.empty()) return Error{source + ": no merges and no vocabulary"};
  BpeTokenizer t;
  for (size_t i = 0; i < merges.size(); ++i) t.ranks_.emplace(std::move(merges[i]), static_cast<int>(i));
  t.vocab_ = std::move(vocab);
  return t;
}

Result<BpeTokenizer> BpeTokenizer::fromFiles(const std::string& vocabJson, const std::string& mergesTxt) {
  auto vtext = readUtf8TextFile(vocabJson);
  if (!vtext) return vtext.error();
  auto mtext = readUtf8TextFile(mergesTxt);
  if (!mtext) return mtext.error();
  return fromTexts(*vtext, *mtext, vocabJson, mergesTxt);
}

Result<BpeTokenizer> BpeTokenizer::fromTexts(std::string_view vocabText, std::string_view mergesText,
                                             const std::string& vocabJson, const std::string& mergesTxt) {
  const auto doc = nlohmann::json::parse(vocabText, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return Error{vocabJson + ": not a JSON object of {token: id} (is this a GPT-2 vocab.json?)"};
  std::unordered_map<std::string, int> vocab;
  for (const auto& [tok, id] : doc.items()) {
    if (!id.is_number_integer()) return Error{fmt::format("{}: token {} has no integer id", vocabJson, quoteForMessage(tok))};
    vocab.emplace(tok, id.get<int>());
  }
  std::vector<std::pair<std::string, std::string>> merges;
  size_t start = 0;
  int line = 0;
  while (start < mergesText.size()) {
    size_t end = mergesText.find('\n', start);
    if (end == std::string_view::npos) end = mergesText.size();
    std::string l(mergesText.substr(start, end - start));
    start = end + 1;
    ++line;
    if (!l.empty() && l.back() == '\r') l.pop_back();
    if (l.empty() || (line == 1 && l.starts_with("#version"))) continue;
    const size_t sp = l.find(' ');
    if (sp == std::string::npos || sp == 0 || sp + 1 >= l.size() || l.find(' ', sp + 1) != std::string::npos)
      return Error{fmt::format("{}: line {}: expected two symbols separated by one space", mergesTxt, line)};
    merges.emplace_back(l.substr(0, sp), l.substr(sp + 1));
  }
  return fromMerges(std::move(merges), std::move(vocab), mergesTxt);
}

}  // namespace attn
