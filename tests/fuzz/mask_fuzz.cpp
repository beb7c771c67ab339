// Mask specs (--mask, GUI field, session files): a spec parses to a mask whose
// canonical text parses back to the same mask, or to a one-line error.
#include <algorithm>
#include <cstdint>
#include <string_view>

#include "attn/masks/mask.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view spec(reinterpret_cast<const char*>(data), size);
  auto m = attn::Mask::parse(spec);
  if (!m) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(m.error().message, ""));
    return 0;
  }
  // Canonical form round-trips.
  const std::string canon = m->spec();
  auto again = attn::Mask::parse(canon);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->spec() == canon);
  // Sizes derived from the input so the fuzzer explores validate() too.
  const int nq = 1 + static_cast<int>(size % 13), nk = 1 + static_cast<int>((size / 13) % 11);
  if (!m->validate(nq, nk)) return 0;
  const auto bits = m->bitmap(nq, nk);
  FUZZ_CHECK(bits.size() == static_cast<size_t>(nq) * nk);
  for (int i = 0; i < nq; ++i)
    for (int j = 0; j < nk; ++j) {
      FUZZ_CHECK(bits[static_cast<size_t>(i) * nk + j] == (m->allowed(i, j) ? 1 : 0));
      FUZZ_CHECK(again->allowed(i, j) == m->allowed(i, j));
    }
  return 0;
}
