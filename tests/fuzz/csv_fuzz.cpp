// CSV matrix loader: any bytes give a finite matrix whose row and column
// tokens match its size, or a one-line error naming the file.
#include <cmath>
#include <cstdint>
#include <string_view>

#include "attn/io/csv_reader.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = attn::parseCsvMatrix(text, "fuzz.csv");
  if (!r) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(r.error().message, "fuzz.csv"));
    return 0;
  }
  const auto& m = r->values;
  FUZZ_CHECK(m.rows() >= 1 && m.cols() >= 1);
  // Each number takes at least one byte and a separator, so the matrix is
  // never larger than the text allows.
  FUZZ_CHECK(m.rows() * m.cols() <= static_cast<Eigen::Index>(size));
  FUZZ_CHECK(m.allFinite());
  FUZZ_CHECK(r->rowTokens.empty() || static_cast<Eigen::Index>(r->rowTokens.size()) == m.rows());
  FUZZ_CHECK(r->columnTokens.empty() || static_cast<Eigen::Index>(r->columnTokens.size()) == m.cols());
  return 0;
}
