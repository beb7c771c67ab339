// JSON session files: any bytes give a session that saves and loads back to
// the same JSON, or a one-line error naming the file.
#include <cstdint>
#include <string_view>

#include "attn/io/session.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto s = attn::sessionFromJson(text, "fuzz.json");
  if (!s) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(s.error().message, "fuzz.json"));
    return 0;
  }
  const std::string saved = attn::sessionToJson(*s);
  auto again = attn::sessionFromJson(saved, "saved.json");
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(attn::sessionToJson(*again) == saved);
  return 0;
}
