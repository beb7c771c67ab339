#include "attn/io/text_file.h"

#include <fmt/format.h>

#include "attn/io/npy_reader.h"
#include "attn/io/utf8.h"

namespace attn {

Result<std::string> readUtf8TextFile(const std::string& path, int64_t maxBytes) {
  auto bytes = readFileBytes(path, maxBytes);
  if (!bytes) return bytes.error();
  std::string& s = *bytes;
  const bool bom = s.starts_with("\xEF\xBB\xBF");
  if (bom) s.erase(0, 3);
  if (const int64_t bad = firstInvalidUtf8(s); bad >= 0)
    return Error{fmt::format("{}: not valid UTF-8 text (byte offset {}: 0x{:02X})", path,
                             bad + (bom ? 3 : 0), static_cast<unsigned char>(s[bad]))};
  return std::move(s);
}

}  // namespace attn
