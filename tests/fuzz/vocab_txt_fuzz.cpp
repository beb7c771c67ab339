// BERT vocab.txt (WordPiece): any bytes give a tokenizer or a one-line error
// naming the file. Input: the vocab.txt, then (after a "=====" line) a text to
// tokenize; every token produced is a line of the vocabulary.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "attn/tokenizers/wordpiece.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = attn::fuzz::splitParts({reinterpret_cast<const char*>(data), size}, 2);
  auto t = attn::WordPieceTokenizer::fromVocabText(parts[0], "vocab.txt");
  if (!t) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(t.error().message, "vocab.txt"));
    return 0;
  }
  FUZZ_CHECK(t->vocabSize() >= 1);
  // The vocabulary as the loader reads it: lines without trailing CR/spaces.
  std::set<std::string> lines;
  std::string_view rest = parts[0];
  while (true) {
    const size_t nl = rest.find('\n');
    std::string line(rest.substr(0, nl));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    lines.insert(line);
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
  for (const std::string& tok : t->tokenize(parts[1])) {
    FUZZ_CHECK(!tok.empty());
    FUZZ_CHECK(lines.count(tok) == 1);
  }
  return 0;
}
