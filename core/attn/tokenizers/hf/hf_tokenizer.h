#pragma once
// The tokenizer of a Hugging Face model folder, matching the `tokenizers`
// library token for token: tokenizer.json (normalizer, pre-tokenizer, model,
// post-processor, added tokens), or the older vocab.txt (BERT WordPiece) and
// vocab.json + merges.txt (GPT-2 byte-level BPE), with tokenizer_config.json /
// special_tokens_map.json deciding lowercasing and BOS/CLS/SEP.
// Supported models: WordPiece (BERT), byte-level BPE (GPT-2, RoBERTa, Llama 3,
// Qwen2 with their own pre-tokenizer regexes) and SentencePiece-style BPE with
// "▁" and byte fallback (Llama 2, TinyLlama, Mistral).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attn/status.h"

namespace attn::models {

/// What a model reads: ids, plus what views show.
struct Encoding {
  std::vector<int> ids;
  std::vector<std::string> tokens;  // vocabulary strings as the library returns them ("Ġworld", "##ing", "▁the", "<s>")
  std::vector<int> typeIds;         // segment (token_type) ids: 1 for the second text of a pair, else 0
  std::vector<uint8_t> special;     // 1 where the post-processor added a special token (CLS, SEP, BOS, EOS)
  std::vector<uint8_t> attention;   // HF attention_mask: 1 = a real token, 0 = padding; empty = all 1
  /// Per token, the bytes [start, end) of the original UTF-8 text (before any normalization)
  /// it came from: the library's offsets, in bytes where its bindings count characters
  /// (toCodePointOffsets converts). Special tokens the post-processor added are (0, 0); the
  /// tokens of a pair's second text count from the start of that text. Empty when the tokens
  /// did not come from a text (generated ids, image patches).
  std::vector<std::pair<int, int>> offsets;

  int size() const { return static_cast<int>(ids.size()); }
};

/// Byte offsets into `text` as the library's BytesToCharOffsetConverter turns them into
/// character (code point) offsets, the unit its Python and Node bindings report.
std::vector<std::pair<int, int>> toCodePointOffsets(std::string_view text,
                                                    const std::vector<std::pair<int, int>>& byteOffsets);

/// `e.offsets` as row-major [N, 2] int32 values (the token_offsets arrays of the CLI's
/// files); empty when the encoding has no offsets for every token.
std::vector<int32_t> offsetRows(const Encoding& e);

class HfTokenizer {
 public:
  /// From a model folder: tokenizer.json if present, else vocab.txt or vocab.json + merges.txt;
  /// tokenizer_config.json / special_tokens_map.json when present. `modelType` is config.json's
  /// model_type ("bert", "gpt2", "llama", ...), used only where the files leave a choice open
  /// (e.g. whether GPT-2's vocab.json adds no special tokens while BERT's vocab.txt adds CLS/SEP).
  /// Errors name the file and the fault.
  static Result<HfTokenizer> fromFolder(const std::string& dir, const std::string& modelType);
  /// From a tokenizer.json's text (`source` names it in errors).
  static Result<HfTokenizer> fromTokenizerJson(std::string_view json, const std::string& source);

  /// Encodes `text` (and the second segment `pair`, if given) as the library's
  /// `encode(text, pair, add_special_tokens)` does. Non-UTF-8 text is an error naming `source`
  /// and the byte offset.
  Result<Encoding> encode(std::string_view text, std::optional<std::string_view> pair,
                          bool addSpecialTokens, const std::string& source) const;

  /// "WordPiece", "byte-level BPE" or "SentencePiece BPE".
  std::string kindName() const;
  /// One past the largest id any token can get (vocabulary and added tokens).
  int idLimit() const;
  /// The vocabulary string of `id` ("" when unknown).
  std::string idToToken(int id) const;
  /// The mask token's id for masked-LM models: the tokenizer_config.json mask_token (vocab.txt,
  /// vocab.json), else the special token "[MASK]" or "<mask>"; -1 when there is none.
  int maskTokenId() const;
  /// `id` as text a reader sees: byte-level "Ġworld" -> " world", "▁the" -> " the", "<0x0A>" -> "\n".
  std::string displayText(int id) const;
  /// The text of `ids` as the library's decode(ids) with the folder's decoder: byte-level
  /// tokens joined as bytes (invalid UTF-8 replaced), SentencePiece "▁" as spaces.
  /// The caller leaves out the special tokens it does not want.
  std::string decode(const std::vector<int>& ids) const;

  HfTokenizer();
  ~HfTokenizer();
  HfTokenizer(HfTokenizer&&) noexcept;
  HfTokenizer& operator=(HfTokenizer&&) noexcept;

  /// Internal (core/attn/tokenizers/hf/hf_tokenizer_impl.h): the pipeline stages the loaders fill.
  struct Impl;

 private:
  explicit HfTokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  friend HfTokenizer makeHfTokenizer(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

}  // namespace attn::models
