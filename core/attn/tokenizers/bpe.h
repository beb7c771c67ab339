#pragma once
// Byte-level BPE as GPT-2 uses it (Radford et al. 2019; Sennrich et al. 2016):
// the GPT-2 pre-tokenizer pattern splits text into words with their leading
// space, each word's UTF-8 bytes are mapped to printable characters (space
// becomes "Ġ", newline "Ċ"), and ranked merges are applied lowest rank first.
// Tokens are returned as they appear in the vocabulary ("Ġworld").
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "attn/status.h"

namespace attn {

/// A GPT-2 vocab.json text ({token: id}, ids in [0, 2^31-2]); errors name `source`.
Result<std::unordered_map<std::string, int>> parseVocabJson(std::string_view text, const std::string& source);
/// A merges.txt text ("a b" per line, an optional "#version" first line) in rank order.
Result<std::vector<std::pair<std::string, std::string>>> parseMergesTxt(std::string_view text,
                                                                       const std::string& source);

class BpeTokenizer {
 public:
  /// GPT-2 style vocab.json ({token: id}) and merges.txt ("a b" per line, "#version" header).
  static Result<BpeTokenizer> fromFiles(const std::string& vocabJson, const std::string& mergesTxt);
  /// The same from the two files' texts; the sources name them in errors.
  static Result<BpeTokenizer> fromTexts(std::string_view vocabJson, std::string_view mergesTxt,
                                        const std::string& vocabSource, const std::string& mergesSource);
  /// `merges` in rank order; `vocab` may be empty (then tokens are not checked).
  static Result<BpeTokenizer> fromMerges(std::vector<std::pair<std::string, std::string>> merges,
                                         std::unordered_map<std::string, int> vocab, const std::string& source);

  std::vector<std::string> tokenize(std::string_view text) const;

  /// GPT-2's pre-tokenizer split, before byte mapping (exposed for tests).
  static std::vector<std::string> preTokenize(std::string_view text);
  /// The byte-to-character table of GPT-2's bytes_to_unicode(), as UTF-8.
  static const std::vector<std::string>& byteToUnicode();

 private:
  std::vector<std::string> bpe(const std::string& mappedWord) const;

  std::map<std::pair<std::string, std::string>, int> ranks_;
  std::unordered_map<std::string, int> vocab_;
};

}  // namespace attn
