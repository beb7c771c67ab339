#include "attn/io/quote.h"

#include <fmt/format.h>

namespace attn {

std::string quoteForMessage(std::string_view text, size_t maxBytes) {
  std::string out = "'";
  const size_t n = std::min(text.size(), maxBytes);
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7F) out += fmt::format("\\x{:02x}", c);
    else out += static_cast<char>(c);
  }
  out += "'";
  if (text.size() > n) out += fmt::format(" (+{} more bytes)", text.size() - n);
  return out;
}

}  // namespace attn
