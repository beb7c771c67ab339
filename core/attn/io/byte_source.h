#pragma once
// Random access to the bytes of an untrusted file or buffer. The .npz reader
// decodes each member from the file straight into its final array instead of
// holding the whole file first. Callers check every range against
// size() before they read it.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "attn/io/regular_file.h"
#include "attn/status.h"

namespace attn {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  /// Copies [offset, offset + n) to dst. A failed file read zero-fills dst and
  /// sets failed(); the range itself is the caller's to check.
  virtual void read(uint64_t offset, size_t n, char* dst) = 0;
  bool failed() const { return failed_; }
  /// What errors call it: the file's path, or the caller's label for a buffer.
  const std::string& name() const { return name_; }
  /// Little-endian unsigned integer of `bytes` (at most 8) bytes at offset.
  uint64_t littleEndianAt(uint64_t offset, int bytes);
  /// Whether the bytes at offset are `expected` (false past the end).
  bool bytesEqual(uint64_t offset, std::string_view expected);

 protected:
  explicit ByteSource(std::string name) : name_(std::move(name)) {}
  bool failed_ = false;
  std::string name_;
};

/// Bytes already in memory (the fuzz targets and tests parse buffers).
class MemoryByteSource final : public ByteSource {
 public:
  MemoryByteSource(std::string_view bytes, std::string name) : ByteSource(std::move(name)), bytes_(bytes) {}
  uint64_t size() const override { return bytes_.size(); }
  void read(uint64_t offset, size_t n, char* dst) override;

 private:
  std::string_view bytes_;
};

/// A file on disk, read on demand; small reads (zip headers) go through a
/// 64 KiB window, large ones straight into the caller's buffer.
class FileByteSource final : public ByteSource {
 public:
  /// Opens `path` with readFileBytes' checks and messages (missing, empty,
  /// larger than maxBytes).
  static Result<std::unique_ptr<FileByteSource>> open(const std::string& path,
                                                      int64_t maxBytes = int64_t{16} << 30);
  uint64_t size() const override { return size_; }
  void read(uint64_t offset, size_t n, char* dst) override;

 private:
  FileByteSource(RegularFile file, std::string path)
      : ByteSource(std::move(path)), file_(std::move(file)), size_(static_cast<uint64_t>(file_.size())) {}
  void readDirect(uint64_t offset, size_t n, char* dst);

  RegularFile file_;
  uint64_t size_ = 0;
  std::string window_;
  uint64_t windowOffset_ = 0;
};

}  // namespace attn
