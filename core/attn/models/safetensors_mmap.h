#pragma once
// Memory-mapped .safetensors files for model weights: the header is parsed and
// checked with the same rules as attn::parseSafetensorsHeader (the reference
// loader's), the data stays in the page cache and tensors are read in place.
// POSIX mmap, owned RAII; a file is unmapped when its last user goes.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "attn/io/safetensors_reader.h"
#include "attn/models/verified_weights.h"
#include "attn/status.h"

namespace attn::models {

/// A read-only mapping of a whole file.
class MappedFile {
 public:
  static Result<std::unique_ptr<MappedFile>> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const { return static_cast<const char*>(addr_); }
  size_t size() const { return size_; }
  /// Tells the kernel the pages of [offset, offset + bytes) are no longer needed
  /// (after a tensor was converted to f32), so they leave the resident set.
  void release(size_t offset, size_t bytes) const;
  /// The file as it was when mapped (verified_weights.h).
  const FileStamp& stamp() const { return stamp_; }

 private:
  MappedFile(void* addr, size_t size, FileStamp stamp) : addr_(addr), size_(size), stamp_(stamp) {}
  void* addr_ = nullptr;
  size_t size_ = 0;
  FileStamp stamp_;
};

/// One mapped .safetensors file and its validated header.
class SafetensorsFile {
 public:
  /// Maps `path` and checks its header. Model tensors may be large: the limits
  /// are the file's own size, not the tensor-file reader's defaults.
  static Result<std::shared_ptr<SafetensorsFile>> open(const std::string& path);

  const std::string& path() const { return path_; }
  const std::vector<SafetensorsEntry>& entries() const { return entries_; }
  const SafetensorsEntry* find(std::string_view name) const;
  /// The tensor's raw bytes inside the mapping.
  std::string_view bytes(const SafetensorsEntry& e) const;
  void release(const SafetensorsEntry& e) const;
  const FileStamp& stamp() const { return map_->stamp(); }

 private:
  std::string path_;
  std::unique_ptr<MappedFile> map_;
  int64_t dataStart_ = 0;
  std::vector<SafetensorsEntry> entries_;
  std::unordered_map<std::string, size_t> byName_;
};

/// Bytes per element of a safetensors dtype name (0: unknown).
int safetensorsDtypeSize(std::string_view dtype);

}  // namespace attn::models
