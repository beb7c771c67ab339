#pragma once
// NumPy .npy (format 1.0) and .npz (a zip of .npy members, stored) writers.
// Format: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "attn/status.h"
#include "attn/tensor.h"

namespace attn {

/// Little-endian float32 array, C order.
std::string encodeNpy(const Tensor& t);
/// Little-endian int32 array ('<i4'), C order, with `shape` (empty: 1-D); for ids,
/// ranks and counts, which float32 would round past 2^24.
std::string encodeNpyInt32(const std::vector<int32_t>& values, const std::vector<int64_t>& shape = {});
/// A numpy unicode array ('<U{maxlen}', UTF-32LE), as np.array(list_of_str): 1-D, or
/// `shape` (C order; its product must equal strings.size()).
std::string encodeNpyStrings(const std::vector<std::string>& strings, const std::vector<int64_t>& shape = {});

/// Collects named .npy members and writes them as one .npz, atomically.
class NpzWriter {
 public:
  void add(std::string name, const Tensor& t) { members_.emplace_back(std::move(name), encodeNpy(t)); }
  void addInts(std::string name, const std::vector<int32_t>& v, const std::vector<int64_t>& shape = {}) {
    members_.emplace_back(std::move(name), encodeNpyInt32(v, shape));
  }
  void addStrings(std::string name, const std::vector<std::string>& s, const std::vector<int64_t>& shape = {}) {
    members_.emplace_back(std::move(name), encodeNpyStrings(s, shape));
  }
  /// The .npz bytes (zip, stored members, CRC-32 from zlib).
  std::string bytes() const;
  Status write(const std::string& path) const;

 private:
  std::vector<std::pair<std::string, std::string>> members_;  // name (no .npy), npy bytes
};

}  // namespace attn
