#pragma once
// tokenizer.json "model": WordPiece (BERT) and BPE (byte-level as in GPT-2,
// RoBERTa, Llama 3 and Qwen2; SentencePiece-style with "▁", byte fallback and
// fused unknowns as in Llama 2, TinyLlama and Mistral), as the `tokenizers`
// library tokenizes one pre-token.
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "attn/status.h"

namespace attn::models {

struct ModelToken {
  int id;
  std::string token;
  size_t start, end;  // the bytes of the pre-token it covers (the library's Token::offsets)
};

class HfModel {
 public:
  virtual ~HfModel() = default;
  /// Appends the tokens of one pre-token (never empty text).
  virtual void tokenize(const std::string& word, std::vector<ModelToken>& out) const = 0;
  virtual std::optional<int> tokenToId(const std::string& token) const = 0;
  virtual std::string idToToken(int id) const = 0;
  /// One past the largest id.
  virtual int idLimit() const = 0;
  virtual bool isWordPiece() const = 0;
  virtual bool byteFallback() const { return false; }
};

/// Greedy longest-match-first pieces (Wu et al. 2016), "##" continuations, the
/// unknown token for a word longer than `maxChars` characters or not coverable.
Result<std::unique_ptr<HfModel>> makeWordPiece(std::unordered_map<std::string, int> vocab, std::string unk,
                                               std::string prefix, size_t maxChars, const std::string& source);

struct BpeOptions {
  std::optional<std::string> unk;
  std::string continuingSubwordPrefix;
  std::string endOfWordSuffix;
  bool fuseUnk = false;
  bool byteFallback = false;
  bool ignoreMerges = false;
};

/// Ranked merges (Sennrich et al. 2016), lowest rank first and leftmost among
/// equals, as the library's Word::merge_all. Every merge's parts and result must
/// be in the vocabulary.
Result<std::unique_ptr<HfModel>> makeBpe(std::unordered_map<std::string, int> vocab,
                                         const std::vector<std::pair<std::string, std::string>>& merges,
                                         BpeOptions options, const std::string& source);

/// makeBpe for a vocabulary listed in id order (tokens[i] has id i) and merges written "a b", as
/// GGUF stores them (tokenizer.ggml.tokens, .merges): the same model without the maps built
/// twice. A token listed twice is found by its last id, as a JSON object's last key wins; every
/// id keeps its own text. Tokens must be UTF-8; merges are checked as makeBpe checks them.
Result<std::unique_ptr<HfModel>> makeBpeInIdOrder(const std::vector<std::string_view>& tokens,
                                                  const std::vector<std::string_view>& merges,
                                                  BpeOptions options, const std::string& source);

/// Unigram (hf_unigram.cpp): Viterbi over [piece, score] pieces, unk_id, byte_fallback.
Result<std::unique_ptr<HfModel>> parseUnigram(const nlohmann::json& j, const std::string& source);
/// WordLevel (hf_unigram.cpp): one id per whole pre-token, else unk_token.
Result<std::unique_ptr<HfModel>> parseWordLevel(const nlohmann::json& j, const std::string& source);

/// The "model" object of a tokenizer.json.
Result<std::unique_ptr<HfModel>> parseModel(const nlohmann::json& j, const std::string& source);

}  // namespace attn::models
