#pragma once
// One entry point for every tokenizer a front end offers: whitespace+punctuation
// words, characters (CJK per character), WordPiece (BERT vocab.txt or
// tokenizer.json) and byte-level BPE (GPT-2 vocab.json + merges.txt or
// tokenizer.json).
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/status.h"

namespace attn {

enum class TokenizerKind { Words, Chars, WordPiece, Bpe };
std::optional<TokenizerKind> parseTokenizerKind(std::string_view name);
std::string_view tokenizerKindName(TokenizerKind k);

struct TokenizerConfig {
  TokenizerKind kind = TokenizerKind::Words;
  std::string vocabFile;          // WordPiece vocab.txt, or BPE vocab.json
  std::string mergesFile;         // BPE merges.txt
  std::string tokenizerJsonFile;  // Hugging Face tokenizer.json (WordPiece or byte-level BPE)
};

class TextTokenizer {
 public:
  /// Loads whatever files the kind needs; errors name the file or the missing option.
  static Result<TextTokenizer> create(const TokenizerConfig& config);
  /// A WordPiece or Bpe tokenizer from a tokenizer.json's text (`source` names it in errors).
  static Result<TextTokenizer> fromTokenizerJson(std::string_view json, const std::string& source,
                                                 TokenizerKind kind);

  /// Tokens of `text`; `source` names the text in errors (a file or "--text").
  /// Non-UTF-8 text is an error naming the byte offset.
  Result<std::vector<std::string>> tokenize(std::string_view text, const std::string& source) const;

  TokenizerKind kind() const { return kind_; }

 private:
  TokenizerKind kind_ = TokenizerKind::Words;
  std::function<std::vector<std::string>(std::string_view)> fn_;
};

}  // namespace attn
