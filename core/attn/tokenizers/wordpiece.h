#pragma once
// WordPiece as BERT uses it (Devlin et al. 2019; Wu et al. 2016): a basic
// split on whitespace, punctuation and CJK characters (with optional
// lowercasing and accent stripping for uncased vocabularies), then greedy
// longest-match-first pieces, continuation pieces prefixed with "##", and the
// unknown token for a word that cannot be built from the vocabulary.
// The work is done by attn::models::HfTokenizer built as BertTokenizerFast
// converts a vocab.txt, so the splits are Hugging Face's exactly.
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "attn/status.h"

namespace attn::models {
class HfTokenizer;
}

namespace attn {

class WordPieceTokenizer {
 public:
  /// A BERT vocab.txt: one token per line, line number = id.
  static Result<WordPieceTokenizer> fromVocabFile(const std::string& path);
  /// The same from the file's text (`source` names it in errors).
  static Result<WordPieceTokenizer> fromVocabText(std::string_view text, const std::string& source);
  /// `lowercase`: -1 decides from the vocabulary (no upper-case word pieces = uncased).
  /// `unknown` must be in the vocabulary (every output token is).
  static Result<WordPieceTokenizer> fromVocab(std::vector<std::string> vocab, const std::string& source,
                                              int lowercase = -1, std::string unknown = "[UNK]");

  std::vector<std::string> tokenize(std::string_view text) const;

  bool lowercase() const { return lowercase_; }
  /// Fails only if the vocabulary cannot hold the pipeline (it always can once built).
  Status setContinuationPrefix(std::string p);
  size_t vocabSize() const { return vocab_.size(); }

 private:
  Status rebuild(const std::string& source);

  std::shared_ptr<const models::HfTokenizer> hf_;
  std::unordered_map<std::string, int> vocab_;
  bool lowercase_ = true;
  std::string unk_ = "[UNK]";
  std::string prefix_ = "##";
};

}  // namespace attn
