#include "attn/io/quote.h"

#include <fmt/format.h>

namespace attn {

std::string quoteForMessage(std::string_view text, size_t maxBytes) {
  // maxBytes bounds what is written, not what is read: an escaped control
  // character takes four bytes, and the quote stays short either way.
  std::string out = "'";
  size_t i = 0;
  for (; i < text.size() && out.size() <= maxBytes; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7F) out += fmt::format("\\x{:02x}", c);
    else out += static_cast<char>(c);
  }
  out += "'";
  if (i < text.size()) out += fmt::format(" (+{} more bytes)", text.size() - i);
  return out;
}

}  // namespace attn
