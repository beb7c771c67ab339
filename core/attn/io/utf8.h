#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attn {

/// Decodes UTF-8 into code points; nullopt on malformed input.
std::optional<std::u32string> utf8ToUtf32(std::string_view s);
std::string utf32ToUtf8(std::u32string_view s);
bool isValidUtf8(std::string_view s);
/// Byte offset of the first malformed UTF-8 sequence, or -1 if all is valid.
int64_t firstInvalidUtf8(std::string_view s);

}  // namespace attn
