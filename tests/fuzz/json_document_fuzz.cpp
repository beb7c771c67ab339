// The JSON entry point every loader uses: any bytes give a document no deeper
// than the limit, or a one-line error naming the source; never a crash. The
// depth pre-scan must agree with the parsed document: what it lets through nests
// no deeper than kMaxJsonDepth (measured here without recursion).
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "attn/io/json_document.h"
#include "attn/models/experiments/corpus_stats.h"
#include "fuzz_check.h"

namespace {

int depthOf(const nlohmann::json& root) {
  int deepest = 0;
  std::vector<std::pair<const nlohmann::json*, int>> todo{{&root, 0}};
  while (!todo.empty()) {
    auto [j, d] = todo.back();
    todo.pop_back();
    if (!j->is_structured()) continue;
    deepest = std::max(deepest, d + 1);
    for (const auto& child : *j) todo.emplace_back(&child, d + 1);
  }
  return deepest;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = attn::parseJsonText(text, "fuzz.json");
  if (!doc) {
    FUZZ_CHECK(attn::fuzz::isOneLineNaming(doc.error().message, "fuzz.json"));
  } else {
    FUZZ_CHECK(depthOf(*doc) <= attn::kMaxJsonDepth);
    FUZZ_CHECK(attn::jsonExcerpt(*doc).size() < 200);
  }
  // A corpus statistics state line (corpus --resume reads the last one back).
  auto stats = attn::models::CorpusStats::fromJsonLine(text, "state.jsonl");
  if (!stats) FUZZ_CHECK(attn::fuzz::isOneLineNaming(stats.error().message, "state.jsonl"));
  return 0;
}
