#pragma once
#include <string>

#include "attn/status.h"

namespace attn {

/// Reads a UTF-8 text file (a leading BOM is dropped). Errors name the file:
/// missing, empty, too large, or not UTF-8 (with the byte offset of the fault).
Result<std::string> readUtf8TextFile(const std::string& path, int64_t maxBytes = int64_t{64} << 20);

}  // namespace attn
