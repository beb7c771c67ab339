#pragma once
// Little-endian integer encoding for the .npy/.npz/zip writers.

#include <cstdint>
#include <string>

namespace attn {

// Appends the low `bytes` bytes of v to out, least significant first.
inline void putLe(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

}  // namespace attn
