#pragma once
// Hugging Face .safetensors: 8-byte little-endian header length, a JSON header
// {name: {dtype, shape, data_offsets: [begin, end]}}, then the raw data.
// Format: https://huggingface.co/docs/safetensors (F32, F16, BF16, F64 and
// integer/bool dtypes are converted to float32).
// The header length and every offset are checked against the file size and a
// limit before anything is allocated, and the reference loader's rules hold
// for every file (safetensors crate, `Metadata::validate`): the header starts
// with '{', tensor byte ranges tile the data section exactly (no overlap, no
// gap, no trailing bytes), each range is shape x dtype size, and
// `__metadata__` maps names to strings.
#include <string>
#include <string_view>
#include <vector>

#include "attn/io/npy_reader.h"
#include "attn/status.h"

namespace attn {

/// One tensor's entry in a safetensors header (no data read yet).
struct SafetensorsEntry {
  std::string name;
  std::string dtype;  // "F32", "BF16", ...
  std::vector<int64_t> shape;
  int64_t begin = 0, end = 0;  // byte offsets into the data section
};

/// The reference implementation refuses headers above 100 MB; so do we.
inline constexpr int64_t kMaxSafetensorsHeader = int64_t{100} << 20;

/// The little-endian header length in a file's first 8 bytes.
uint64_t safetensorsHeaderLength(std::string_view first8);
/// The reference loader's bounds on that length: at most kMaxSafetensorsHeader,
/// within the file after the 8 length bytes, and at least "{}".
Status checkSafetensorsHeaderLength(uint64_t len, uint64_t fileSize, const std::string& source);

/// Parses and checks the header JSON against `dataSize` (bytes after the header).
Result<std::vector<SafetensorsEntry>> parseSafetensorsHeader(std::string_view json, int64_t dataSize,
                                                             const std::string& source,
                                                             const ReadLimits& limits = {});
/// Parses a whole .safetensors file held in memory; arrays in header order.
Result<std::vector<NpyArray>> parseSafetensors(std::string_view bytes, const std::string& source,
                                               const ReadLimits& limits = {});
/// Reads the header first and then only the data each tensor needs.
Result<std::vector<NpyArray>> readSafetensorsFile(const std::string& path, const ReadLimits& limits = {});

}  // namespace attn
