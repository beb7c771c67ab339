#pragma once
// tokenizer.json "post_processor": TemplateProcessing, BertProcessing,
// RobertaProcessing, ByteLevel (no tokens) and Sequence, adding CLS/SEP/BOS/EOS
// and segment ids as the `tokenizers` library does, and ByteLevel's trim_offsets.
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/status.h"
#include "attn/tokenizers/hf/hf_tokenizer.h"

namespace attn::models {

class PostProcessor {
 public:
  enum class Kind { None, Template, Bert, Roberta };

  /// A null JSON value gives Kind::None. Errors name `source` and the fault.
  static Result<PostProcessor> parse(const nlohmann::json& j, const std::string& source, int depth = 0);
  /// BERT's "[CLS] $A [SEP]" / "[CLS] $A [SEP] $B [SEP]" (type ids 1 for B).
  static PostProcessor bert(std::string cls, int clsId, std::string sep, int sepId);
  /// RoBERTa's "<s> $A </s>" / "<s> $A </s> </s> $B </s>" (type ids all 0).
  static PostProcessor roberta(std::string cls, int clsId, std::string sep, int sepId);

  /// Joins the encodings of A (type ids 0) and B (type ids 1, if present); added special
  /// tokens get offsets (0, 0).
  Encoding process(Encoding a, std::optional<Encoding> b, bool addSpecialTokens) const;
  /// ByteLevel / RobertaProcessing trim_offsets on the tokens of one text (before
  /// process): leading and trailing "Ġ" or whitespace characters leave the offsets,
  /// counted in characters of `text` as the library counts them.
  void trimOffsets(Encoding& e, std::string_view text) const;
  /// Adds a trim_offsets step (RobertaConverter sets one).
  void addTrim(bool addPrefixSpace) { trims_.push_back(addPrefixSpace); }

  Kind kind() const { return kind_; }

 private:
  struct Piece {
    bool isSequence;   // $A / $B, else a special token
    int sequence;      // 0 = A, 1 = B
    std::string name;  // special token name in special_
    int typeId;
  };
  struct Special {
    std::string name;
    std::vector<int> ids;
    std::vector<std::string> tokens;
  };

  Kind kind_ = Kind::None;
  std::vector<Piece> single_, pair_;
  bool hasPair_ = false;
  std::vector<Special> special_;
  std::string cls_, sep_;
  int clsId_ = 0, sepId_ = 0;
  std::vector<bool> trims_;  // one per trim_offsets step: its add_prefix_space
};

}  // namespace attn::models
