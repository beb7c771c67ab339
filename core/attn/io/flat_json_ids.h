#pragma once
// A fast path for the largest JSON files a model folder has that are flat objects of token ids
// (GPT-2's and Marian's vocab.json: 50,000-65,000 entries). nlohmann's parser, even its SAX
// interface, spends most of a process's tokenizer start-up on them; this reader accepts only
// the exact shape {"string": non-negative integer, ...} of valid RFC 8259 text and answers
// nothing for anything else, so the caller's full parser then gives the file's one message.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace attn {

/// The object's entries (a repeated key: the last id, as the full parser), or nullopt when
/// the text is not such an object (not JSON, another shape, an id past maxId or written as
/// "-0", "1.0" or "1e3", a lone surrogate, invalid UTF-8).
std::optional<std::unordered_map<std::string, int>> parseFlatJsonIds(std::string_view text, int64_t maxId);

}  // namespace attn
