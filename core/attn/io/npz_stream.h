#pragma once
// An .npz written member by member straight to disk (`run` built the
// whole archive in memory, about three times the arrays). Each member's size is
// known from its shape, so the zip local header is written first with the
// final sizes and only its CRC-32 is patched once the data has streamed past.
// Stored (uncompressed) members, as numpy.savez writes them. The archive goes
// to a temporary file beside the target and is renamed into place by commit(),
// so a failure never leaves a partial output file.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "attn/status.h"
#include "attn/tensor.h"

namespace attn {

/// Element type of a float member: float32 ('<f4') or IEEE half ('<f2').
enum class NpyFloat { F32, F16 };

class NpzStreamWriter {
 public:
  NpzStreamWriter() = default;
  NpzStreamWriter(const NpzStreamWriter&) = delete;
  NpzStreamWriter& operator=(const NpzStreamWriter&) = delete;
  ~NpzStreamWriter();  // removes the temporary file unless committed

  /// Opens `path`'s temporary sibling for writing.
  Status open(const std::string& path);
  /// Starts member `name` (".npy" is appended) of the given element type and shape.
  Status beginFloatMember(const std::string& name, NpyFloat type, const std::vector<int64_t>& shape);
  /// Appends n values in C order (converted to the member's type).
  Status appendFloats(const float* values, size_t n);
  /// Ends the member; fails when fewer or more values than its shape came.
  Status endMember();
  /// One whole member from a tensor / a list of strings ('<U' array; `shape` empty: 1-D).
  Status addFloat(const std::string& name, const Tensor& t, NpyFloat type = NpyFloat::F32);
  Status addStrings(const std::string& name, const std::vector<std::string>& strings,
                    const std::vector<int64_t>& shape = {});
  /// One whole little-endian int32 member ('<i4'; `shape` empty: 1-D).
  Status addInts(const std::string& name, const std::vector<int32_t>& values,
                 const std::vector<int64_t>& shape = {});
  /// Central directory, close, rename over `path`.
  Status commit();

 private:
  Status beginMember(const std::string& name, const std::string& npyHeader, uint64_t dataBytes);
  Status addEncoded(const std::string& name, const std::string& npy);
  Status writeRaw(const void* data, size_t n);
  Status fail(const std::string& what);

  struct Entry {
    std::string fname;
    uint32_t crc = 0;
    uint64_t size = 0, offset = 0;
  };
  std::string path_, tmp_;
  std::FILE* file_ = nullptr;
  uint64_t pos_ = 0;
  std::vector<Entry> entries_;
  bool inMember_ = false;
  NpyFloat type_ = NpyFloat::F32;
  uint64_t remaining_ = 0;  // values still expected
  uint32_t crc_ = 0;
  std::vector<uint16_t> half_;
};

/// numpy's .npy header for the dtype descr and shape (padded to 64 bytes).
std::string npyHeader(const std::string& descr, const std::vector<int64_t>& shape);

}  // namespace attn
