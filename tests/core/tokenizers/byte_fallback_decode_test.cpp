// HfTokenizer::decode of byte-fallback pieces against Hugging Face's tokenizers (npm 0.23.2, the
// ByteFallback decoder; tests/scripts/hf_tokenizers/decode_byte_fallback.js wrote the texts):
// a run of <0xNN> pieces forming UTF-8 is its characters, an invalid run one U+FFFD per byte.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attn/tokenizers/hf/hf_tokenizer.h"

namespace attn::models {
namespace {

TEST(HfTokenizerDecode, ByteFallbackRunsAsTheLibraryDecodesThem) {
  const std::string dir = std::string(ATTN_FIXTURE_DIR) + "/models/llama";
  auto tok = HfTokenizer::fromFolder(dir, "llama");
  ASSERT_TRUE(tok.ok()) << tok.error().message;
  std::ifstream in(dir + "/reference_decode.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const auto cases = nlohmann::json::parse(ss.str())["cases"];
  ASSERT_GE(cases.size(), 7u);
  for (const auto& c : cases) {
    const auto ids = c["ids"].get<std::vector<int>>();
    for (size_t i = 0; i < ids.size(); ++i)
      EXPECT_EQ(tok->idToToken(ids[i]), c["pieces"][i].get<std::string>());
    EXPECT_EQ(tok->decode(ids), c["text"].get<std::string>()) << c["pieces"].dump();
  }
}

}  // namespace
}  // namespace attn::models
