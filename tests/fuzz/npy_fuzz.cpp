// .npy loader: any bytes give an array whose data matches its shape, or a
// one-line error naming the file; never a crash or an oversized allocation.
#include <cstdint>
#include <string_view>

#include "attn/io/npy_reader.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  attn::ReadLimits limits;
  limits.maxElements = int64_t{1} << 20;  // keep each run small; the check is what matters
  limits.maxBytes = int64_t{16} << 20;
  auto r = attn::parseNpy(bytes, "fuzz.npy", limits);
  if (!r) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(r.error().message, "fuzz.npy"));
    return 0;
  }
  int64_t n = 1;
  for (int64_t d : r->shape) {
    FUZZ_CHECK(d >= 0);
    n *= d;
  }
  FUZZ_CHECK(n <= limits.maxElements);
  if (r->isText)
    FUZZ_CHECK(static_cast<int64_t>(r->strings.size()) == n);
  else
    FUZZ_CHECK(static_cast<int64_t>(r->values.data.size()) == n && r->values.shape == r->shape);
  return 0;
}
