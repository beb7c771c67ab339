// The byte-level BPE a GGUF file embeds, built straight from tokenizer.ggml.tokens and .merges
// (makeBpeInIdOrder): merge ranks and duplicate tokens on hand-made vocabularies, and the GGUF
// fixtures (tests/scripts/gen_gguf_models.py converted them from the Hugging Face folders) against
// their folders' own tokenizer.json: the same text for every id and the same tokens and offsets.
#include "attn/tokenizers/gguf/gguf_tokenizer.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "attn/models/gguf/gguf_file.h"
#include "attn/tokenizers/hf/hf_models.h"
#include "attn/tokenizers/hf/hf_tokenizer.h"

namespace attn::models {
namespace {

std::vector<std::string> idsOf(const HfModel& m, const std::string& word) {
  std::vector<ModelToken> out;
  m.tokenize(word, out);
  std::vector<std::string> tokens;
  for (const auto& t : out) tokens.push_back(t.token + "@" + std::to_string(t.id));
  return tokens;
}

std::unique_ptr<HfModel> bpeOrFail(const std::vector<std::string_view>& tokens,
                                   const std::vector<std::string_view>& merges) {
  auto m = makeBpeInIdOrder(tokens, merges, BpeOptions{}, "t");
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().message);
  return m.ok() ? std::move(*m) : nullptr;
}

TEST(BpeInIdOrder, TheLowerRankMergesFirst) {
  // "abc" with a+b ranked first is ab|c; with b+c first it is a|bc (Sennrich et al. 2016).
  const std::vector<std::string_view> tokens{"a", "b", "c", "ab", "bc"};
  const auto abFirst = bpeOrFail(tokens, {"a b", "b c"});
  const auto bcFirst = bpeOrFail(tokens, {"b c", "a b"});
  ASSERT_TRUE(abFirst && bcFirst);
  EXPECT_EQ(idsOf(*abFirst, "abc"), (std::vector<std::string>{"ab@3", "c@2"}));
  EXPECT_EQ(idsOf(*bcFirst, "abc"), (std::vector<std::string>{"a@0", "bc@4"}));
  EXPECT_EQ(abFirst->idLimit(), 5);
}

TEST(BpeInIdOrder, ATokenListedTwiceIsFoundByItsLastIdAndEveryIdKeepsItsText) {
  const auto m = bpeOrFail({"a", "b", "a", "ab"}, {"a b"});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->tokenToId("a"), 2);
  EXPECT_EQ(m->idToToken(0), "a");
  EXPECT_EQ(m->idToToken(2), "a");
  EXPECT_EQ(idsOf(*m, "ab"), (std::vector<std::string>{"ab@3"}));
  EXPECT_EQ(idsOf(*m, "ba"), (std::vector<std::string>{"b@1", "a@2"}));
}

TEST(BpeInIdOrder, BadVocabulariesAndMergesAreNamed) {
  auto error = [](const std::vector<std::string_view>& tokens, const std::vector<std::string_view>& merges) {
    auto m = makeBpeInIdOrder(tokens, merges, BpeOptions{}, "f.gguf");
    return m.ok() ? std::string("(built)") : m.error().message;
  };
  EXPECT_EQ(error({}, {}), "f.gguf: the vocabulary is empty");
  EXPECT_EQ(error({"a", "\xC3"}, {}), "f.gguf: token 1 is not UTF-8");
  EXPECT_EQ(error({"a", "b", "ab"}, {"a b", "ab"}),
            "f.gguf: merge 2 'ab' is not two tokens separated by one space");
  EXPECT_EQ(error({"a", "b", "ab"}, {"a  b"}),
            "f.gguf: merge 1 'a  b' is not two tokens separated by one space");
  EXPECT_EQ(error({"a", "b"}, {"a b"}), "f.gguf: merge 1 ('a' 'b') uses a token missing from the vocabulary");
  EXPECT_EQ(error({"a", "ab"}, {"a b"}),
            "f.gguf: merge 1 ('a' 'b') uses a token missing from the vocabulary");
}

struct GgufFolder {
  const char* gguf;
  const char* folder;
  const char* modelType;
};

class GgufBpeMatchesFolder : public ::testing::TestWithParam<GgufFolder> {};

TEST_P(GgufBpeMatchesFolder, EveryIdAndTheTokensOfTexts) {
  const std::string fixtures = ATTN_FIXTURE_DIR;
  auto file = gguf::GgufFile::open(fixtures + "/gguf/models/" + GetParam().gguf);
  ASSERT_TRUE(file.ok()) << file.error().message;
  auto gg = gguf::ggufTokenizer(**file);
  ASSERT_TRUE(gg.ok()) << gg.error().message;
  auto hf = HfTokenizer::fromFolder(fixtures + "/models/" + GetParam().folder, GetParam().modelType);
  ASSERT_TRUE(hf.ok()) << hf.error().message;
  EXPECT_EQ(gg->kindName(), hf->kindName());
  // The converter pads the vocabulary to the embedding's rows (qwen2: 419 tokens, 512 rows).
  ASSERT_GE(gg->idLimit(), hf->idLimit());
  for (int id = 0; id < hf->idLimit(); ++id) ASSERT_EQ(gg->idToToken(id), hf->idToToken(id)) << "id " << id;
  const char* texts[] = {
      "The animal didn't cross the street because it was too tired.",
      "  two  spaces, digits 12345 and caf\xC3\xA9 \xE2\x80\x94 ok?\nNew line.\r\n\ttab",
      "I'm sure they'll say 'we've' and \"you'd\" -- THE END!!! 3.14159 \xE4\xBD\xA0\xE5\xA5\xBD "
      "\xF0\x9F\x98\x80",
      "",
  };
  for (const char* text : texts) {
    SCOPED_TRACE(text);
    auto a = gg->encode(text, std::nullopt, true, "text");
    auto b = hf->encode(text, std::nullopt, true, "text");
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->ids, b->ids);
    EXPECT_EQ(a->tokens, b->tokens);
    EXPECT_EQ(a->offsets, b->offsets);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GgufBpeMatchesFolder,
                         ::testing::Values(GgufFolder{"gpt2-F32.gguf", "gpt2", "gpt2"},
                                           GgufFolder{"llama3-F32.gguf", "llama3", "llama"},
                                           GgufFolder{"qwen2-F32.gguf", "qwen2", "qwen2"}),
                         [](const auto& p) { return std::string(p.param.folder); });

}  // namespace
}  // namespace attn::models
