#include "attn/tokenizers/bpe.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "attn/io/json_document.h"
#include "attn/io/quote.h"
#include "attn/io/regular_file.h"
#include "attn/io/text_file.h"
#include "attn/io/utf8.h"
#include "attn/tokenizers/hf/hf_json.h"
#include "attn/tokenizers/hf/hf_pre_tokenizers.h"

namespace attn {
namespace {

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

const std::vector<std::string>& BpeTokenizer::byteToUnicode() { return models::byteLevelAlphabet(); }

// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
std::vector<std::string> BpeTokenizer::preTokenize(std::string_view text) {
  if (!utf8ToUtf32(text)) return {};
  return models::gpt2Split(std::string(text));
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
  auto vtext = readUtf8TextFile(vocabJson, file_limit::kVocabulary);
  if (!vtext) return vtext.error();
  auto mtext = readUtf8TextFile(mergesTxt, file_limit::kVocabulary);
  if (!mtext) return mtext.error();
  return fromTexts(*vtext, *mtext, vocabJson, mergesTxt);
}

Result<std::unordered_map<std::string, int>> parseVocabJson(std::string_view text, const std::string& source) {
  auto parsed = parseJsonText(text, source);
  if (!parsed) return parsed.error();
  const nlohmann::json& doc = *parsed;
  if (!doc.is_object())
    return Error{source + ": not a JSON object of {token: id} (is this a GPT-2 vocab.json?)"};
  std::unordered_map<std::string, int> vocab;
  for (const auto& [tok, id] : doc.items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > models::hfjson::kMaxTokenId)
      return Error{fmt::format("{}: token {} has no valid id", source, quoteForMessage(tok))};
    vocab[tok] = static_cast<int>(id.get<int64_t>());
  }
  return vocab;
}

Result<std::vector<std::pair<std::string, std::string>>> parseMergesTxt(std::string_view text,
                                                                       const std::string& source) {
  std::vector<std::pair<std::string, std::string>> merges;
  size_t start = 0;
  int line = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string l(text.substr(start, end - start));
    start = end + 1;
    ++line;
    if (!l.empty() && l.back() == '\r') l.pop_back();
    if (l.empty() || (line == 1 && l.starts_with("#version"))) continue;
    const size_t sp = l.find(' ');
    if (sp == std::string::npos || sp == 0 || sp + 1 >= l.size() || l.find(' ', sp + 1) != std::string::npos)
      return Error{fmt::format("{}: line {}: expected two symbols separated by one space", source, line)};
    merges.emplace_back(l.substr(0, sp), l.substr(sp + 1));
  }
  return merges;
}

Result<BpeTokenizer> BpeTokenizer::fromTexts(std::string_view vocabText, std::string_view mergesText,
                                             const std::string& vocabJson, const std::string& mergesTxt) {
  auto vocab = parseVocabJson(vocabText, vocabJson);
  if (!vocab) return vocab.error();
  auto merges = parseMergesTxt(mergesText, mergesTxt);
  if (!merges) return merges.error();
  return fromMerges(std::move(*merges), std::move(*vocab), mergesTxt);
}

}  // namespace attn
