// GPT-2 vocab.json + merges.txt (byte-level BPE): any bytes give a tokenizer
// or a one-line error naming the faulty file. Input: vocab.json, "=====" line,
// merges.txt, "=====" line, a text to tokenize. BPE only merges symbols, so the
// tokens always spell the text's bytes in GPT-2's byte-to-unicode alphabet.
#include <cstdint>
#include <string>
#include <string_view>

#include "attn/io/utf8.h"
#include "attn/tokenizers/bpe.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = attn::fuzz::splitParts({reinterpret_cast<const char*>(data), size}, 3);
  auto t = attn::BpeTokenizer::fromTexts(parts[0], parts[1], "vocab.json", "merges.txt");
  if (!t) {
    const std::string& msg = t.error().message;
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(msg, "") &&
               (msg.find("vocab.json") != std::string::npos || msg.find("merges.txt") != std::string::npos));
    return 0;
  }
  const std::string_view text = parts[2];
  std::string joined;
  for (const std::string& tok : t->tokenize(text)) {
    FUZZ_CHECK(!tok.empty());
    joined += tok;
  }
  std::string mapped;
  if (attn::firstInvalidUtf8(text) < 0)
    for (unsigned char b : text) mapped += attn::BpeTokenizer::byteToUnicode()[b];
  FUZZ_CHECK(joined == mapped);
  return 0;
}
