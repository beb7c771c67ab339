#include "attn/io/atomic_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

namespace attn {

Status writeFileAtomic(const std::string& path, std::string_view bytes) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  fs::path tmp = target;
  tmp += fmt::format(".tmp{}", std::random_device{}());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return Error{fmt::format("{}: cannot write ({})", path, std::strerror(errno))};
  const bool wrote = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const bool flushed = std::fflush(f) == 0;
  const bool closed = std::fclose(f) == 0;
  if (!wrote || !flushed || !closed) {
    std::error_code ec;
    fs::remove(tmp, ec);
    return Error{fmt::format("{}: write failed ({})", path, std::strerror(errno))};
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return Error{fmt::format("{}: cannot replace file ({})", path, ec.message())};
  }
  return okStatus();
}

}  // namespace attn
