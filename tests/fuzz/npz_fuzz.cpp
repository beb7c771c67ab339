// .npz loader (zip container, stored or deflated members): arrays consistent
// with their shapes, or a one-line error naming the archive.
#include <cstdint>
#include <string_view>

#include "attn/io/npy_reader.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  attn::ReadLimits limits;
  limits.maxElements = int64_t{1} << 20;
  limits.maxBytes = int64_t{16} << 20;
  auto r = attn::parseNpz(bytes, "fuzz.npz", limits);
  if (!r) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(r.error().message, "fuzz.npz"));
    return 0;
  }
  for (const auto& a : *r) {
    int64_t n = 1;
    for (int64_t d : a.shape) n *= d;
    FUZZ_CHECK(n <= limits.maxElements);
    FUZZ_CHECK(a.isText ? static_cast<int64_t>(a.strings.size()) == n
                        : static_cast<int64_t>(a.values.data.size()) == n);
  }
  return 0;
}
