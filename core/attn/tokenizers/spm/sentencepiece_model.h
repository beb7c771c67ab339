#pragma once
// A SentencePiece .model file (Kudo & Richardson 2018) through Debian's
// libsentencepiece: Llama 2 / Mistral / Gemma tokenizer.model, T5 / mT5 /
// ALBERT spiece.model, Marian source.spm / target.spm. The file is untrusted:
// it is read as a regular file under a size limit, its protobuf is walked and
// its precompiled charsmaps checked (model_proto_scan.h, precompiled_charsmap.h)
// before the library sees it, and every library status becomes an Error.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/status.h"

namespace attn::models {

/// One piece of an encoding: its id, its vocabulary string ("▁the", "<0x0A>") and
/// the bytes [begin, end) of the original text it covers (empty for a byte
/// piece that is not a character's last, as the library reports them).
struct SpmPiece {
  int id;
  std::string piece;
  size_t begin, end;
};

class SentencePieceModel {
 public:
  /// A .model file; errors name the file and the fault.
  static Result<SentencePieceModel> fromFile(const std::string& path);
  /// A serialized ModelProto (`source` names it in errors).
  static Result<SentencePieceModel> fromBytes(std::string_view bytes, const std::string& source);

  /// The library's Encode: normalization, then Unigram Viterbi or BPE merges.
  /// Non-UTF-8 text is an error naming `source` and the byte offset.
  Result<std::vector<SpmPiece>> encode(std::string_view text, const std::string& source) const;

  int pieceCount() const;
  /// The vocabulary string of `id` ("" outside [0, pieceCount())).
  std::string idToPiece(int id) const;
  std::optional<int> pieceToId(const std::string& piece) const;
  bool isControl(int id) const;
  bool isByte(int id) const;
  /// -1 where the model has none.
  int unkId() const;
  int bosId() const;
  int eosId() const;
  int padId() const;
  /// "Unigram", "BPE", "word" or "char".
  const std::string& algorithm() const;

  SentencePieceModel();
  ~SentencePieceModel();
  SentencePieceModel(SentencePieceModel&&) noexcept;
  SentencePieceModel& operator=(SentencePieceModel&&) noexcept;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};

}  // namespace attn::models
