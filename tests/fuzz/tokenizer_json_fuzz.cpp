// Hugging Face tokenizer.json (WordPiece or byte-level BPE model): any bytes
// give a tokenizer for the kind asked, or a one-line error naming the file.
// Input: the tokenizer.json, then (after a "=====" line) a text to tokenize;
// both kinds are tried on every input.
#include <cstdint>
#include <string_view>

#include "attn/tokenizers/text_tokenizer.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = attn::fuzz::splitParts({reinterpret_cast<const char*>(data), size}, 2);
  for (auto kind : {attn::TokenizerKind::WordPiece, attn::TokenizerKind::Bpe}) {
    auto t = attn::TextTokenizer::fromTokenizerJson(parts[0], "tokenizer.json", kind);
    if (!t) {
      FUZZ_CHECK(attn::fuzz::isOneLineNaming(t.error().message, "tokenizer.json"));
      continue;
    }
    FUZZ_CHECK(t->kind() == kind);
    auto tokens = t->tokenize(parts[1], "text");
    if (!tokens) {
      FUZZ_CHECK(attn::fuzz::isOneLineNaming(tokens.error().message, "text"));
      continue;
    }
    for (const auto& tok : *tokens) FUZZ_CHECK(!tok.empty());
  }
  return 0;
}
