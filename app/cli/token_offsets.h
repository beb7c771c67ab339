#pragma once
// token_offsets arrays beside a model's token strings: [N, 2] int32, the bytes
// [start, end) of the user's UTF-8 text each token came from (Encoding::offsets).
#include <string>

#include "attn/tokenizers/hf/hf_tokenizer.h"

namespace attn::cli {

/// Adds `name` ([N, 2] int32) to an .npz writer with addInts(name, values, shape);
/// nothing when the encoding has no offsets (tokens that came from no text).
template <class NpzWriterT>
void addTokenOffsets(NpzWriterT& npz, const std::string& name, const models::Encoding& e) {
  const auto rows = models::offsetRows(e);
  if (!rows.empty()) npz.addInts(name, rows, {static_cast<int64_t>(e.offsets.size()), 2});
}

}  // namespace attn::cli
