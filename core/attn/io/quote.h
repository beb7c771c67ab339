#pragma once
// Untrusted text inside a one-line error message: quoted, control characters
// escaped (a newline in a mask spec or a token must not split the message), and
// long inputs shortened.
#include <string>
#include <string_view>

namespace attn {

std::string quoteForMessage(std::string_view text, size_t maxBytes = 80);

}  // namespace attn
