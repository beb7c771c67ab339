#pragma once
// NumPy .npy (format versions 1-3) and .npz (zip, stored or deflated) readers.
// Every number comes from an untrusted file: sizes are checked against the
// bytes actually present and against a limit before anything is allocated.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attn/status.h"
#include "attn/tensor.h"

namespace attn {

struct NpyArray {
  std::string name;    // member name without ".npy" (npz) or the file name
  std::string descr;   // dtype as written, e.g. "<f4", "<U5"
  std::vector<int64_t> shape;
  bool isText = false;               // a '<U' unicode array
  Tensor values;                     // numeric arrays, converted to float32, C order
  std::vector<std::string> strings;  // text arrays, UTF-8, C order

  std::string shapeString() const;
};

struct ReadLimits {
  int64_t maxElements = int64_t{1} << 31;  // per array
  int64_t maxBytes = int64_t{8} << 30;     // per array, decoded
};

/// Parses the bytes of one .npy; `source` names it in errors ("a.npz:q.npy").
Result<NpyArray> parseNpy(std::string_view bytes, const std::string& source,
                          const ReadLimits& limits = {});
/// Parses an .npz archive's bytes into its arrays, in archive order.
Result<std::vector<NpyArray>> parseNpz(std::string_view bytes, const std::string& source,
                                       const ReadLimits& limits = {});

Result<NpyArray> readNpyFile(const std::string& path, const ReadLimits& limits = {});
Result<std::vector<NpyArray>> readNpzFile(const std::string& path, const ReadLimits& limits = {});

/// Reads a whole file, refusing files larger than maxBytes.
Result<std::string> readFileBytes(const std::string& path, int64_t maxBytes = int64_t{16} << 30);

}  // namespace attn
