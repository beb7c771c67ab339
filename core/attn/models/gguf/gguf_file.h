#pragma once
// A GGUF file (ggml's docs/gguf.md, versions 2 and 3): header, typed metadata
// key/values, tensor infos and the aligned tensor data, memory-mapped. Every count
// and length read from the file is checked against the bytes left before anything
// is allocated for it; every tensor is checked to lie inside the file, aligned and
// without overlapping another. Arrays are not decoded at parse time: they stay
// slices of the mapping until asked for (a vocabulary of 150k strings costs nothing
// until the tokenizer reads it).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "attn/status.h"

namespace attn::models {
class MappedFile;
struct FileStamp;
}  // namespace attn::models

namespace attn::models::gguf {

/// gguf_metadata_value_type.
enum class ValueType : uint32_t {
  UInt8 = 0,
  Int8 = 1,
  UInt16 = 2,
  Int16 = 3,
  UInt32 = 4,
  Int32 = 5,
  Float32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
  UInt64 = 10,
  Int64 = 11,
  Float64 = 12,
};
/// "uint32", "string", "array", ...
std::string_view valueTypeName(ValueType t);

/// One metadata value, pointing into the file's bytes.
struct MetaValue {
  ValueType type = ValueType::UInt8;
  /// Scalars: their little-endian bytes; strings: the text; arrays: the encoded elements.
  std::string_view bytes;
  ValueType elementType = ValueType::UInt8;  // arrays only
  uint64_t count = 0;                        // arrays only: elements
};

struct MetaEntry {
  std::string key;
  MetaValue value;
};

struct TensorInfo {
  std::string name;
  std::vector<int64_t> dims;  // ggml order: dims[0] varies fastest (a [out, in] matrix is {in, out})
  uint32_t type = 0;          // ggml_type (ggml_types.h)
  uint64_t offset = 0;        // from the start of the data section
  uint64_t bytes = 0;
  int64_t elements = 0;
};

class GgufFile {
 public:
  /// Maps `path` (a regular file) and parses it.
  static Result<std::shared_ptr<const GgufFile>> open(const std::string& path);
  /// Parses bytes that must outlive the result (tests, fuzz targets); `name` names them in errors.
  static Result<std::shared_ptr<const GgufFile>> parse(std::string_view bytes, std::string name);
  ~GgufFile();

  const std::string& path() const { return path_; }
  uint32_t version() const { return version_; }
  uint64_t alignment() const { return alignment_; }
  uint64_t dataOffset() const { return dataOffset_; }
  uint64_t fileSize() const { return bytes_.size(); }

  const std::vector<MetaEntry>& metadata() const { return metadata_; }
  const MetaValue* find(std::string_view key) const;

  // Typed look-ups; errors name the file and the key. A missing key takes `fallback` when
  // given (else is an error). Integers of any integer type, numbers of any numeric type.
  Result<int64_t> integer(std::string_view key, std::optional<int64_t> fallback, int64_t lo,
                          int64_t hi) const;
  Result<double> number(std::string_view key, std::optional<double> fallback, double lo, double hi) const;
  Result<bool> boolean(std::string_view key, std::optional<bool> fallback) const;
  Result<std::string> string(std::string_view key, std::optional<std::string> fallback) const;
  /// An array of strings (views into the mapping, valid while this file lives).
  Result<std::vector<std::string_view>> stringArray(std::string_view key) const;
  /// An array of any numeric (or bool) type, as doubles (exact for 32-bit ints and floats).
  Result<std::vector<double>> numberArray(std::string_view key) const;

  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const TensorInfo* tensor(std::string_view name) const;
  /// The tensor's bytes inside the file.
  std::string_view data(const TensorInfo& t) const { return bytes_.substr(dataOffset_ + t.offset, t.bytes); }
  /// Asks the kernel to map the whole file's pages now (a file opened, not parsed from memory):
  /// the products read every weight once, and faulting the pages in one at a time inside the
  /// kernels' row reads leaves the prefetchers nothing to fetch. A no-op where unsupported.
  void mapAllPages() const;
  /// The file as it was when mapped (verified_weights.h); null for bytes parsed from memory.
  const FileStamp* stamp() const;

 private:
  GgufFile() = default;
  friend class GgufParser;

  std::string path_;
  std::unique_ptr<MappedFile> map_;
  std::string_view bytes_;
  uint32_t version_ = 0;
  uint64_t alignment_ = 32;
  uint64_t dataOffset_ = 0;
  std::vector<MetaEntry> metadata_;
  std::unordered_map<std::string, size_t> metaIndex_;
  std::vector<TensorInfo> tensors_;
  std::unordered_map<std::string, size_t> tensorIndex_;
};

/// True when the file at `path` starts with the GGUF magic (no other check).
bool looksLikeGguf(const std::string& path);

}  // namespace attn::models::gguf
