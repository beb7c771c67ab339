#include "attn/tokenizers/bpe.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "attn/io/flat_json_ids.h"
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

namespace {

/// vocab.json read straight into the map through nlohmann's SAX interface: a 50,000-65,000
/// entry file no longer becomes a DOM (an ordered map of json values) that is then copied. Only
/// a flat object of integer ids is accepted; the first fault stops the parse.
class VocabSax : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit VocabSax(const std::string& source) : source_(source) {}
  std::unordered_map<std::string, int> vocab;
  std::string error;

  bool null() override { return badValue(); }
  bool boolean(bool) override { return badValue(); }
  bool number_integer(number_integer_t v) override { return id(v); }
  bool number_unsigned(number_unsigned_t v) override {
    return v > static_cast<number_unsigned_t>(models::hfjson::kMaxTokenId) ? badValue()
                                                                           : id(static_cast<int64_t>(v));
  }
  bool number_float(number_float_t, const string_t&) override { return badValue(); }
  bool string(string_t&) override { return badValue(); }
  bool binary(binary_t&) override { return badValue(); }
  bool start_object(std::size_t) override { return depth_++ == 0 || badValue(); }
  bool key(string_t& k) override {
    key_ = std::move(k);
    return true;
  }
  bool end_object() override { return --depth_, true; }
  bool start_array(std::size_t) override { return badValue(); }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    // what() is "[json.exception.parse_error.101] parse error at line 1, column 2: why", as parseJsonText
    std::string_view why(e.what());
    if (const size_t at = why.find(": "); at != std::string_view::npos) why.remove_prefix(at + 2);
    error = fmt::format("{}: not valid JSON (byte {}): {}", source_, position, quoteForMessage(why, 160));
    return false;
  }

 private:
  bool id(int64_t v) {
    if (depth_ != 1 || v < 0 || v > models::hfjson::kMaxTokenId) return badValue();
    vocab[key_] = static_cast<int>(v);
    return true;
  }
  bool badValue() {
    if (error.empty())
      error = depth_ == 0 ? source_ + ": not a JSON object of {token: id} (is this a GPT-2 vocab.json?)"
                          : fmt::format("{}: token {} has no valid id", source_, quoteForMessage(key_));
    return false;
  }
  const std::string& source_;
  std::string key_;
  int depth_ = 0;
};

}  // namespace

Result<std::unordered_map<std::string, int>> parseVocabJson(std::string_view text,
                                                            const std::string& source) {
  if (auto fast = parseFlatJsonIds(text, models::hfjson::kMaxTokenId)) return std::move(*fast);
  VocabSax sax(source);  // anything else: the full parser, for the file's message
  try {
    if (!nlohmann::json::sax_parse(text.begin(), text.end(), &sax) || !sax.error.empty())
      return Error{sax.error.empty() ? source + ": not valid JSON" : sax.error};
  } catch (const nlohmann::json::exception&) {  // out_of_range: a number such as 1e400 overflows a double
    return Error{fmt::format("{}: not valid JSON (a number is out of range)", source)};
  }
  return std::move(sax.vocab);
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
