#pragma once
#include <string>
#include <string_view>

#include "attn/status.h"

namespace attn {

/// Writes `bytes` to a temporary file beside `path` and renames it into place,
/// so a failed write never leaves a half-written file or clobbers the old one.
Status writeFileAtomic(const std::string& path, std::string_view bytes);

}  // namespace attn
