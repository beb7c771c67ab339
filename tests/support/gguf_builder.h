#pragma once
// Builds GGUF bytes field by field (ggml docs/gguf.md) for the reader's tests: a
// well-formed file, or one broken at the exact field a test names.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace attn::test {

struct GgufBuilder {
  std::string out;

  GgufBuilder& raw(std::string_view s) {
    out.append(s);
    return *this;
  }
  GgufBuilder& u8(uint8_t v) {
    out.push_back(static_cast<char>(v));
    return *this;
  }
  GgufBuilder& u32(uint32_t v) { return le(v, 4); }
  GgufBuilder& u64(uint64_t v) { return le(v, 8); }
  GgufBuilder& f32(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return u32(b);
  }
  GgufBuilder& str(std::string_view s) { return u64(s.size()).raw(s); }
  /// "GGUF", version, tensor count, metadata count.
  GgufBuilder& header(uint64_t tensors, uint64_t kvs, uint32_t version = 3) {
    return raw("GGUF").u32(version).u64(tensors).u64(kvs);
  }
  GgufBuilder& kvU32(std::string_view key, uint32_t v) { return str(key).u32(4).u32(v); }
  GgufBuilder& kvF32(std::string_view key, float v) { return str(key).u32(6).f32(v); }
  GgufBuilder& kvStr(std::string_view key, std::string_view v) { return str(key).u32(8).str(v); }
  /// A tensor info: name, dims (ggml order), type, offset.
  GgufBuilder& tensor(std::string_view name, std::initializer_list<uint64_t> dims, uint32_t type,
                      uint64_t offset) {
    str(name).u32(static_cast<uint32_t>(dims.size()));
    for (uint64_t d : dims) u64(d);
    return u32(type).u64(offset);
  }
  GgufBuilder& padTo(size_t alignment) {
    while (out.size() % alignment) out.push_back('\0');
    return *this;
  }

 private:
  GgufBuilder& le(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
    return *this;
  }
};

}  // namespace attn::test
