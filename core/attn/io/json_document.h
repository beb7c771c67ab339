#pragma once
// The one way JSON from a file is parsed. nlohmann's parser is iterative, but
// much of what follows a parse is not: copying, comparing and dump() recurse
// once per level, and so do the tokenizer loaders over Sequence nodes; 100 000
// nested '[' overflow the stack. The text is therefore scanned for its nesting
// depth before nlohmann sees it, and values quoted in messages are shortened
// (jsonExcerpt) instead of dumped whole.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "attn/status.h"

namespace attn {

/// Deepest nesting of arrays and objects accepted. Real files nest a few
/// levels (tokenizer.json: about 6); a Sequence of Sequences stays far below.
inline constexpr int kMaxJsonDepth = 64;

/// Fails when arrays/objects in `text` nest deeper than maxDepth (strings and
/// escapes skipped; linear time, no allocation). Names source and the byte.
Status checkJsonNesting(std::string_view text, std::string_view source, int maxDepth = kMaxJsonDepth);

/// Parses `text` after checkJsonNesting. Errors are one line naming source:
/// "not valid JSON (byte N): why", "nested deeper than ...".
Result<nlohmann::json> parseJsonText(std::string_view text, std::string_view source,
                                     int maxDepth = kMaxJsonDepth);

/// Reads `path` as a regular file of at most maxBytes (attn/io/regular_file.h),
/// checks it is UTF-8 (a BOM is dropped) and parses it with parseJsonText.
Result<nlohmann::json> readJsonFile(const std::string& path, int64_t maxBytes, int maxDepth = kMaxJsonDepth);

/// A value for an error message, at most about maxBytes long and never
/// recursive: scalars as their JSON text in quotes ('"four"', '12'; control
/// characters escaped), arrays and objects by their size ("an array of 3 items").
std::string jsonExcerpt(const nlohmann::json& value, size_t maxBytes = 80);

}  // namespace attn
