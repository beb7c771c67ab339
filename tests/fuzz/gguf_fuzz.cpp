// GGUF files as models: any bytes either parse into a file whose model config, weights and
// embedded tokenizer load, or give one line naming the file; nothing is sized by the file
// before it is checked against the bytes present.
#include <cstdint>
#include <string_view>

#include "attn/models/gguf/gguf_file.h"
#include "attn/models/gguf/gguf_model.h"
#include "attn/tokenizers/gguf/gguf_tokenizer.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto f = attn::models::gguf::GgufFile::parse(bytes, "fuzz.gguf");
  if (!f) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(f.error().message, "fuzz.gguf"));
    return 0;
  }
  auto config = attn::models::gguf::ggufModelConfig(**f);
  if (!config) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(config.error().message, "fuzz.gguf"));
  } else if (auto w = attn::models::gguf::loadGgufWeights(*f, *config); !w) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(w.error().message, "fuzz.gguf"));
  }
  auto tok = attn::models::gguf::ggufTokenizer(**f);
  if (!tok)
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(tok.error().message, "fuzz.gguf"));
  else if (tok->idLimit() > 0)
    (void)tok->encode("fuzz text 12 \xC3\xA9", std::nullopt, true, "text");
  (void)attn::models::gguf::ggufWeightSummary(**f);
  return 0;
}
