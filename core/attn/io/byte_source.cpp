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
  auto f = RegularFile::open(path, maxBytes);
  if (!f) return f.error();
  return std::unique_ptr<FileByteSource>(new FileByteSource(std::move(*f), path));
}

void FileByteSource::readDirect(uint64_t offset, size_t n, char* dst) {
  if (!file_.readAt(static_cast<int64_t>(offset), n, dst)) {
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
