#pragma once
// A read-only walk over the protobuf wire format (protobuf.dev/programming-guides/encoding)
// of a SentencePiece ModelProto (sentencepiece_model.proto), for the two things
// libsentencepiece's public API does not expose or does not check: the trainer's
// model type, and the precompiled charsmaps it would trust unchecked. Parsing the
// model itself is libsentencepiece's job; this only looks.
#include <string>
#include <string_view>
#include <vector>

#include "attn/status.h"

namespace attn::models {

struct SpmProtoFacts {
  /// TrainerSpec.model_type: 1 Unigram (the default), 2 BPE, 3 word, 4 char.
  int modelType = 1;
  /// Every normalizer_spec / denormalizer_spec precompiled_charsmap in the file
  /// (views into the scanned bytes); protobuf keeps the last of each.
  std::vector<std::string_view> charsmaps;
};

/// Errors name `source` and the byte offset of the fault.
Result<SpmProtoFacts> scanModelProto(std::string_view bytes, const std::string& source);

/// "Unigram", "BPE", "word" or "char".
std::string spmModelTypeName(int modelType);

}  // namespace attn::models
