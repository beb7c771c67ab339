#pragma once
// Shared by the fuzz targets: a check that aborts in every build type (asserts
// vanish under NDEBUG), so libFuzzer and the ctest replay both catch a broken
// property, not only a crash.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

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

/// Targets that load several files (or a file and a text to tokenize) take
/// them from one input, separated by this line; missing parts are empty.
inline constexpr std::string_view kPartSeparator = "\n=====\n";

inline std::vector<std::string_view> splitParts(std::string_view bytes, size_t parts) {
  std::vector<std::string_view> out;
  while (out.size() + 1 < parts) {
    const size_t at = bytes.find(kPartSeparator);
    if (at == std::string_view::npos) break;
    out.push_back(bytes.substr(0, at));
    bytes.remove_prefix(at + kPartSeparator.size());
  }
  out.push_back(bytes);
  out.resize(parts);
  return out;
}

}  // namespace attn::fuzz
