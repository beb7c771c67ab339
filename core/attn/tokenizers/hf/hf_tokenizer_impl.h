#pragma once
// What an HfTokenizer holds: the four stages of the `tokenizers` pipeline plus
// the added vocabulary. Shared by hf_tokenizer.cpp (tokenizer.json, encode) and
// hf_tokenizer_files.cpp (model folders, vocab.txt, vocab.json + merges.txt).
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "attn/tokenizers/hf/hf_added_vocabulary.h"
#include "attn/tokenizers/hf/hf_models.h"
#include "attn/tokenizers/hf/hf_normalizers.h"
#include "attn/tokenizers/hf/hf_post_processor.h"
#include "attn/tokenizers/hf/hf_pre_tokenizers.h"
#include "attn/tokenizers/hf/hf_tokenizer.h"

namespace attn::models {

enum class HfKind { WordPiece, ByteLevelBpe, SentencePieceBpe };

struct HfTokenizer::Impl {
  std::unique_ptr<HfModel> model;
  Normalizer normalizer;
  PreTokenizer preTokenizer;
  PostProcessor post;
  AddedVocabulary added;
  std::unordered_map<int, std::string> addedById;
  HfKind kind = HfKind::WordPiece;
  std::string maskToken;  // tokenizer_config.json mask_token, when the loader read it
  std::string kindLabel;  // kindName() when set ("SentencePiece Unigram")

  /// Registers the added tokens (ids from the model vocabulary where it has them).
  void setAddedTokens(std::vector<AddedToken> tokens);
  Encoding encodeOne(std::string_view text) const;
};

/// BERT as BertTokenizerFast converts a vocab.txt: BertNormalizer (accents stripped when
/// lowercasing), BertPreTokenizer, WordPiece, [CLS] $A [SEP] ($B [SEP]); the special tokens
/// among unk/[SEP]/[PAD]/[CLS]/[MASK] that the vocabulary has are kept whole.
Result<HfTokenizer> makeBertWordPiece(const std::unordered_map<std::string, int>& vocab, bool lowercase,
                                      bool stripAccents, bool chineseChars, const std::string& unk,
                                      const std::string& prefix, const std::string& sep, const std::string& cls,
                                      const std::vector<std::string>& specials, const std::string& source,
                                      const std::string& maskToken = {});

/// Whether the folder names `path` at all: a FIFO, a device or a dangling link in
/// its place is then read, and refused with a message, instead of skipped.
bool fileExists(const std::string& path);
/// tokenizer_config.json merged over special_tokens_map.json (both optional).
Result<nlohmann::json> readTokenizerConfig(const std::string& dir);
/// A special token name from the config: a string or {"content": ...}.
std::string configTokenName(const nlohmann::json& config, const char* key, const std::string& fallback);

/// A tokenizer.json's normalizer, pre-tokenizer, post-processor and added tokens (read from `doc`
/// exactly as HfTokenizer::fromTokenizerJson reads them) around `model`, built elsewhere: a GGUF
/// vocabulary goes to makeBpeInIdOrder directly instead of through a JSON text of 10^5 entries.
/// `doc`'s "model" is read only for its "type".
Result<HfTokenizer> tokenizerAroundModel(const nlohmann::json& doc, std::unique_ptr<HfModel> model,
                                         const std::string& source);

/// Builds an HfTokenizer around a filled Impl.
HfTokenizer makeHfTokenizer(std::shared_ptr<const HfTokenizer::Impl> impl);

}  // namespace attn::models
