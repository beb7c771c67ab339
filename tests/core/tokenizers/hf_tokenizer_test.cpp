// attn::models::HfTokenizer against Hugging Face's own tokenizers library: every
// fixture under tests/fixtures/hf_tokenizers/ (small tokenizers in the styles of
// BERT, GPT-2, RoBERTa, Llama 3, Qwen2, Llama 2 / SentencePiece) has an
// expected.json written by tests/scripts/hf_tokenizers/gen_expected.js with the
// library's ids, tokens, type ids, special-token masks and offsets (characters of
// the original text, getOffsets()); all must be identical.
#include "attn/tokenizers/hf/hf_tokenizer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using attn::models::Encoding;
using attn::models::HfTokenizer;

const std::string kDir = std::string(ATTN_FIXTURE_DIR) + "/hf_tokenizers";

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& t : v) s += (s.empty() ? "" : " | ") + t;
  return s;
}

/// Our byte offsets as the library's character offsets: the first `countA` ordinary tokens
/// count in `text`, later ones in `pair`; special tokens stay (0, 0).
std::vector<std::vector<int>> characterOffsets(const Encoding& e, const std::string& text,
                                               const std::optional<std::string>& pair, size_t countA) {
  std::vector<std::pair<int, int>> a, b;
  std::vector<int> segment;
  size_t ordinary = 0;
  for (size_t i = 0; i < e.offsets.size(); ++i) {
    const bool inB = !e.special[i] && ordinary++ >= countA;
    segment.push_back(inB ? 1 : 0);
    (inB ? b : a).push_back(e.offsets[i]);
  }
  a = attn::models::toCodePointOffsets(text, a);
  if (pair) b = attn::models::toCodePointOffsets(*pair, b);
  std::vector<std::vector<int>> out;
  size_t ia = 0, ib = 0;
  for (int s : segment) {
    const auto& o = s ? b[ib++] : a[ia++];
    out.push_back({o.first, o.second});
  }
  return out;
}

class HfTokenizerFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(HfTokenizerFixture, MatchesTheLibraryOnEveryText) {
  const std::string dir = kDir + "/" + GetParam();
  const auto expected = nlohmann::json::parse(readFile(dir + "/expected.json"));
  ASSERT_GE(expected["cases"].size(), 40u);
  const std::string modelType = expected["model_type"].is_string() ? expected["model_type"].get<std::string>() : "";
  auto tok = HfTokenizer::fromFolder(dir, modelType);
  ASSERT_TRUE(tok.ok()) << tok.error().message;
  int matched = 0;
  for (const auto& c : expected["cases"]) {
    const std::string text = c["text"];
    std::optional<std::string> pair;
    if (c["pair"].is_string()) pair = c["pair"].get<std::string>();
    auto e = tok->encode(text, pair ? std::optional<std::string_view>(*pair) : std::nullopt,
                         c["add_special_tokens"].get<bool>(), "--text");
    ASSERT_TRUE(e.ok()) << e.error().message;
    const auto tokens = c["tokens"].get<std::vector<std::string>>();
    EXPECT_EQ(e->tokens, tokens) << "text " << nlohmann::json(text).dump() << "\n ours:   " << join(e->tokens)
                                 << "\n theirs: " << join(tokens);
    EXPECT_EQ(e->ids, c["ids"].get<std::vector<int>>()) << nlohmann::json(text).dump();
    EXPECT_EQ(e->typeIds, c["type_ids"].get<std::vector<int>>()) << nlohmann::json(text).dump();
    std::vector<int> special(e->special.begin(), e->special.end());
    EXPECT_EQ(special, c["special_tokens_mask"].get<std::vector<int>>()) << nlohmann::json(text).dump();
    ASSERT_EQ(e->offsets.size(), e->ids.size());
    auto alone = tok->encode(text, std::nullopt, false, "--text");
    ASSERT_TRUE(alone.ok());
    EXPECT_EQ(characterOffsets(*e, text, pair, alone->ids.size()),
              c["offsets"].get<std::vector<std::vector<int>>>())
        << "text " << nlohmann::json(text).dump() << " | " << join(e->tokens);
    matched += e->tokens == tokens && e->ids == c["ids"].get<std::vector<int>>() ? 1 : 0;
    for (int id : e->ids) {
      EXPECT_LT(id, tok->idLimit());
      EXPECT_FALSE(tok->idToToken(id).empty());
    }
  }
  RecordProperty("matched", matched);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, HfTokenizerFixture,
                         ::testing::Values("bert_uncased", "bert_chinese", "bert_vocab_txt", "gpt2_json",
                                           "gpt2_files", "roberta", "llama3", "qwen2", "llama2",
                                           "sp_metaspace", "t5_unigram", "unigram_bytes", "wordlevel",
                                           "xlmr_unigram"));

TEST(HfTokenizer, KindsAndDisplayText) {
  auto bert = HfTokenizer::fromFolder(kDir + "/bert_uncased", "bert");
  ASSERT_TRUE(bert.ok());
  EXPECT_EQ(bert->kindName(), "WordPiece");
  auto gpt2 = HfTokenizer::fromFolder(kDir + "/gpt2_files", "gpt2");
  ASSERT_TRUE(gpt2.ok()) << gpt2.error().message;
  EXPECT_EQ(gpt2->kindName(), "byte-level BPE");
  auto e = gpt2->encode(" world\n", std::nullopt, true, "--text");
  ASSERT_TRUE(e.ok());
  std::string shown;
  for (int id : e->ids) shown += gpt2->displayText(id);
  EXPECT_EQ(shown, " world\n");
  auto llama = HfTokenizer::fromFolder(kDir + "/llama2", "llama");
  ASSERT_TRUE(llama.ok());
  EXPECT_EQ(llama->kindName(), "SentencePiece BPE");
  e = llama->encode("Hello world\n", std::nullopt, false, "--text");
  ASSERT_TRUE(e.ok());
  shown.clear();
  for (int id : e->ids) shown += llama->displayText(id);
  EXPECT_EQ(shown, " Hello world\n");  // "▁Hello" -> " Hello", "<0x0A>" -> "\n"
  EXPECT_EQ(llama->displayText(1), "<s>");
  EXPECT_EQ(llama->idToToken(3), "<0x00>");
  EXPECT_EQ(llama->idToToken(-5), "");
}

TEST(HfTokenizer, NonUtf8TextNamesTheSourceAndOffset) {
  auto tok = HfTokenizer::fromFolder(kDir + "/bert_uncased", "bert");
  ASSERT_TRUE(tok.ok());
  auto e = tok->encode("ab\xff" "cd", std::nullopt, true, "input.txt");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("input.txt"), std::string::npos) << e.error().message;
  EXPECT_NE(e.error().message.find("byte offset 2"), std::string::npos) << e.error().message;
  e = tok->encode("ok", std::string_view("\xc3"), true, "input.txt");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("second text"), std::string::npos) << e.error().message;
}

void expectError(const attn::Result<HfTokenizer>& r, const std::string& names, const std::string& fault) {
  ASSERT_FALSE(r.ok());
  const std::string& m = r.error().message;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_NE(m.find(names), std::string::npos) << m;
  EXPECT_NE(m.find(fault), std::string::npos) << m;
}

TEST(HfTokenizer, BadFilesGiveOneMessageNamingTheFile) {
  const fs::path tmp = fs::temp_directory_path() / ("attn_hf_tok_" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  expectError(HfTokenizer::fromFolder(tmp.string(), "bert"), tmp.string(), "no tokenizer.json");
  expectError(HfTokenizer::fromFolder((tmp / "absent").string(), "bert"), "absent", "no tokenizer.json");
  {
    std::ofstream(tmp / "vocab.json") << "{\"a\": 0}";
    expectError(HfTokenizer::fromFolder(tmp.string(), "gpt2"), "merges.txt", "missing");
    fs::remove(tmp / "vocab.json");
  }
  std::ofstream(tmp / "tokenizer.json") << "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [";
  const std::string json = (tmp / "tokenizer.json").string();
  expectError(HfTokenizer::fromFolder(tmp.string(), "gpt2"), json, "not valid JSON");
  fs::remove_all(tmp);

  expectError(HfTokenizer::fromTokenizerJson("[1, 2]", "t.json"), "t.json", "not a JSON object");
  expectError(HfTokenizer::fromTokenizerJson(
                  R"({"model": {"type": "Unigram", "vocab": [["a", 0.0]], "unk_id": 5}})", "t.json"),
              "t.json", "unk_id is not an index");
  expectError(
      HfTokenizer::fromTokenizerJson(R"({"model": {"type": "Unigram", "vocab": [["a", "x"]]}})", "t.json"),
      "t.json", "Unigram piece 0 is not [string, finite score]");
  expectError(
      HfTokenizer::fromTokenizerJson(R"({"model": {"type": "Unknownish", "vocab": {"a": 0}}})", "t.json"),
      "t.json", "unsupported model type 'Unknownish'");
  expectError(HfTokenizer::fromTokenizerJson(R"({"model": {"type": "WordPiece", "vocab": {"a": 0}}})", "t.json"),
              "t.json", "no unknown token");
  expectError(HfTokenizer::fromTokenizerJson(
                  R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a b"]}})", "t.json"),
              "t.json", "merge 1");
  expectError(
      HfTokenizer::fromTokenizerJson(
          R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "normalizer": {"type": "Nonexistent"}})",
          "t.json"),
      "t.json", "unsupported normalizer type 'Nonexistent'");
  expectError(HfTokenizer::fromTokenizerJson(
                  R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
                      "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(unclosed"}, "behavior": "Isolated"}})",
                  "t.json"),
              "t.json", "does not compile");
  expectError(HfTokenizer::fromTokenizerJson(R"({"model": {"type": "BPE", "vocab": {"a": -3}, "merges": []}})", "t.json"),
              "t.json", "no valid id");
  expectError(HfTokenizer::fromTokenizerJson(
                  R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
                      "post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}], "special_tokens": {}}})",
                  "t.json"),
              "t.json", "missing from \"special_tokens\"");
  // 2^32 would wrap to 0 in an int; -1 is not a token type.
  for (const char* bad : {"4294967296", "-1", "1.5"}) {
    expectError(HfTokenizer::fromTokenizerJson(
                    fmt::format(R"({{"model": {{"type": "BPE", "vocab": {{"a": 0}}, "merges": []}},
                        "post_processor": {{"type": "TemplateProcessing", "single": [{{"Sequence": {{"id": "A", "type_id": {}}}}}], "special_tokens": {{}}}}}})",
                                bad),
                    "t.json"),
                "t.json", "type_id that is not an integer from 0 to 255");
  }
}

}  // namespace
