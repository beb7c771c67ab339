#pragma once
// Shared by the fuzz targets: a check that aborts in every build type (asserts
// vanish under NDEBUG), so libFuzzer and the ctest replay both catch a broken
// property, not only a crash.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#define FUZZ_CHECK(cond)                                                         \
  do {                                                                           \
    if (!(cond)) {                                                               \
      std::fprintf(stderr, "%s:%d: fuzz property failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                              \
    }                                                                            \
  } while (0)

namespace attn::fuzz {

/// Every loader error is one line that names the input it was given.
inline bool isOneLineNaming(const std::string& message, std::string_view source) {
  return !message.empty() && message.find('\n') == std::string::npos &&
         (source.empty() || message.find(source) != std::string::npos);
}

}  // namespace attn::fuzz
