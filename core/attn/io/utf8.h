#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace attn {

/// Decodes UTF-8 into code points; nullopt on malformed input.
std::optional<std::u32string> utf8ToUtf32(std::string_view s);
std::string utf32ToUtf8(std::u32string_view s);
bool isValidUtf8(std::string_view s);

}  // namespace attn
