// attn::models::HfTokenizer from a tokenizer.json: any bytes give a tokenizer or
// a one-line error naming the file; any text then gives an encoding whose ids are
// all below idLimit() and whose four arrays agree in length, or a one-line error
// naming the text. Input: the tokenizer.json, then (after "=====" lines) a text
// and an optional second text of a pair.
#include <cstdint>
#include <optional>
#include <string_view>

#include "attn/tokenizers/hf/hf_tokenizer.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = attn::fuzz::splitParts({reinterpret_cast<const char*>(data), size}, 3);
  auto t = attn::models::HfTokenizer::fromTokenizerJson(parts[0], "tokenizer.json");
  if (!t) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(t.error().message, "tokenizer.json"));
    return 0;
  }
  FUZZ_CHECK(!t->kindName().empty());
  const std::optional<std::string_view> pair =
      parts[2].empty() ? std::nullopt : std::optional<std::string_view>(parts[2]);
  for (bool special : {true, false}) {
    auto e = t->encode(parts[1], pair, special, "text");
    if (!e) {
      FUZZ_CHECK(attn::fuzz::isOneLineNaming(e.error().message, "text"));
      return 0;
    }
    FUZZ_CHECK(e->tokens.size() == e->ids.size() && e->typeIds.size() == e->ids.size() &&
               e->special.size() == e->ids.size());
    for (size_t i = 0; i < e->ids.size(); ++i) {
      FUZZ_CHECK(e->ids[i] >= 0);
      if (!e->special[i]) FUZZ_CHECK(e->ids[i] < t->idLimit());
      (void)t->displayText(e->ids[i]);
    }
  }
  return 0;
}
