// .safetensors loader: any bytes give tensors whose data matches their shape
// and dtype, or a one-line error naming the file; the header's sizes are
// checked before anything is allocated.
#include <cstdint>
#include <string_view>

#include "attn/io/safetensors_reader.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  attn::ReadLimits limits;
  limits.maxElements = int64_t{1} << 20;  // keep each run small; the check is what matters
  limits.maxBytes = int64_t{16} << 20;
  auto r = attn::parseSafetensors(bytes, "fuzz.safetensors", limits);
  if (!r) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(r.error().message, "fuzz.safetensors"));
    return 0;
  }
  int64_t total = 0;
  for (const auto& a : *r) {
    // Every dimension is a real size and their product (in any order) fits the limit.
    int64_t n = 1;
    for (int64_t d : a.shape) {
      FUZZ_CHECK(d >= 0 && d <= limits.maxElements);
      n *= d;
    }
    int64_t nonZeroProduct = 1;
    for (int64_t d : a.shape)
      if (d > 0) {
        FUZZ_CHECK(nonZeroProduct <= limits.maxElements / d);
        nonZeroProduct *= d;
      }
    FUZZ_CHECK(!a.isText && a.values.shape == a.shape);
    FUZZ_CHECK(static_cast<int64_t>(a.values.data.size()) == n);
    total += n;
  }
  FUZZ_CHECK(total <= static_cast<int64_t>(size));  // no tensor is invented beyond the file's bytes
  return 0;
}
