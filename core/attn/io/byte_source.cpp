#include "attn/io/byte_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace attn {

uint64_t ByteSource::littleEndianAt(uint64_t offset, int bytes) {
  char buf[8] = {};
  read(offset, static_cast<size_t>(bytes), buf);
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(buf[i]);
  return v;
}

bool ByteSource::bytesEqual(uint64_t offset, std::string_view expected) {
  if (offset > size() || size() - offset < expected.size()) return false;
  std::string got(expected.size(), '\0');
  read(offset, got.size(), got.data());
  return got == expected;
}

void MemoryByteSource::read(uint64_t offset, size_t n, char* dst) {
  if (n == 0) return;
  if (offset > bytes_.size() || bytes_.size() - offset < n) {
    std::memset(dst, 0, n);
    failed_ = true;
    return;
  }
  std::memcpy(dst, bytes_.data() + offset, n);
}

Result<std::unique_ptr<FileByteSource>> FileByteSource::open(const std::string& path, int64_t maxBytes) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) return Error{path + ": cannot open file"};
  const auto size = static_cast<int64_t>(f.tellg());
  if (size < 0) return Error{path + ": cannot read file"};
  if (size == 0) return Error{path + ": file is empty"};
  if (size > maxBytes)
    return Error{fmt::format("{}: file of {} bytes is larger than the {} byte limit", path, size, maxBytes)};
  return std::unique_ptr<FileByteSource>(new FileByteSource(std::move(f), static_cast<uint64_t>(size), path));
}

void FileByteSource::readDirect(uint64_t offset, size_t n, char* dst) {
  file_.clear();
  file_.seekg(static_cast<std::streamoff>(offset));
  if (!file_.read(dst, static_cast<std::streamsize>(n))) {
    std::memset(dst, 0, n);
    failed_ = true;
  }
}

void FileByteSource::read(uint64_t offset, size_t n, char* dst) {
  constexpr size_t kWindow = size_t{64} << 10;
  if (n == 0) return;
  if (offset > size_ || size_ - offset < n) {
    std::memset(dst, 0, n);
    failed_ = true;
    return;
  }
  if (n > kWindow / 4) return readDirect(offset, n, dst);
  if (offset < windowOffset_ || offset + n > windowOffset_ + window_.size()) {
    windowOffset_ = offset;
    window_.resize(static_cast<size_t>(std::min<uint64_t>(kWindow, size_ - offset)));
    readDirect(offset, window_.size(), window_.data());
    if (failed_) {
      window_.clear();
      std::memset(dst, 0, n);
      return;
    }
  }
  std::memcpy(dst, window_.data() + (offset - windowOffset_), n);
}

}  // namespace attn
