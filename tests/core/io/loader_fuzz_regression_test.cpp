// Faults found by reading and fuzzing the loaders (tests/fuzz): each case is
// the smallest input that showed it; the fuzz corpora keep the raw inputs.
#include <gtest/gtest.h>

#include <string>

#include "attn/io/csv_reader.h"
#include "attn/io/safetensors_reader.h"
#include "attn/io/session.h"
#include "attn/tokenizers/text_tokenizer.h"

namespace attn {
namespace {

TEST(LoaderRegression, CsvChecksEveryRowBeforeAllocatingTheMatrix) {
  // 100000 columns over 500000 one-cell rows: rows x cols would be 2e11
  // bytes; the ragged second row is reported without ever allocating that.
  std::string text;
  for (int c = 0; c < 100000; ++c) text += c ? ",1" : "1";
  text += "\n";
  for (int r = 0; r < 500000; ++r) text += "1\n";
  auto m = parseCsvMatrix(text, "wide.csv");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message, "wide.csv: row 2 has 1 cells but row 1 has 100000");
}

TEST(LoaderRegression, CsvCellWithNewlineStaysOnOneLine) {
  auto m = parseCsvMatrix("1,2\n3,\"x\ny\"\n", "q.csv");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message, "q.csv: row 2, column 2: 'x\\ny' is not a number");
}

TEST(LoaderRegression, SafetensorsZeroDimensionDoesNotHideAHugeOne) {
  // [0, 2^64-1] used to load as shape [0, -1].
  auto e = parseSafetensorsHeader(
      R"({"x": {"dtype": "F32", "shape": [0, 18446744073709551615], "data_offsets": [0, 0]}})", 0, "z.safetensors");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("z.safetensors: tensor 'x': shape has more than"), std::string::npos)
      << e.error().message;
  // [0, 2^40, 2^40]: no element, but a product that overflows int64.
  auto big = parseSafetensorsHeader(
      R"({"x": {"dtype": "F32", "shape": [0, 1099511627776, 1099511627776], "data_offsets": [0, 0]}})", 0,
      "z.safetensors");
  ASSERT_FALSE(big.ok());
  // An empty tensor with sane dimensions still loads.
  auto ok = parseSafetensorsHeader(R"({"x": {"dtype": "F32", "shape": [0, 4], "data_offsets": [0, 0]}})", 0,
                                   "z.safetensors");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ((*ok)[0].shape, (std::vector<int64_t>{0, 4}));
}

TEST(LoaderRegression, SafetensorsOverlappingTensorsAreRefused) {
  // Two names over the same bytes: a small file must not expand into many copies.
  auto e = parseSafetensorsHeader(R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
                                      "b": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}})",
                                  16, "o.safetensors");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message,
            "o.safetensors: tensors 'a' and 'b' overlap (data_offsets [0, 16] and [8, 16])");
  // Empty tensors may sit at any boundary, before or after their neighbour.
  auto ok = parseSafetensorsHeader(R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
                                       "e": {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]},
                                       "f": {"dtype": "F32", "shape": [0], "data_offsets": [16, 16]}})",
                                   16, "o.safetensors");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->size(), 3u);
}

TEST(LoaderRegression, SafetensorsTensorNameWithNewlineStaysOnOneLine) {
  auto e = parseSafetensorsHeader(R"({"a\nb": {"dtype": "F99", "shape": [1], "data_offsets": [0, 4]}})", 4,
                                  "n.safetensors");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message.find('\n'), std::string::npos) << e.error().message;
  EXPECT_NE(e.error().message.find("tensor 'a\\nb'"), std::string::npos) << e.error().message;
}

TEST(LoaderRegression, TokenizerJsonUnknownTokenComesFromTheFile) {
  // unk_token "<unk>" with no "[UNK]" in the vocabulary used to be refused;
  // an unk_token missing from the vocabulary (or empty) used to give tokens
  // that are not in it.
  const std::string ok =
      R"({"pre_tokenizer": {"type": "BertPreTokenizer"},
          "model": {"type": "WordPiece", "unk_token": "<unk>", "vocab": {"<unk>": 0, "cat": 1}}})";
  auto t = TextTokenizer::fromTokenizerJson(ok, "t.json", TokenizerKind::WordPiece);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->tokenize("cat dog", "text").value(), (std::vector<std::string>{"cat", "<unk>"}));
  for (const char* unk : {R"("")", R"("[UNK]")"}) {
    const std::string missing = std::string(R"({"model": {"type": "WordPiece", "unk_token": )") + unk +
                                R"(, "vocab": {"<unk>": 0, "cat": 1}}})";
    auto bad = TextTokenizer::fromTokenizerJson(missing, "t.json", TokenizerKind::WordPiece);
    ASSERT_FALSE(bad.ok()) << unk;
    EXPECT_NE(bad.error().message.find("t.json: the vocabulary has no unknown token"), std::string::npos);
  }
}

TEST(LoaderRegression, TokenizerJsonSparseIdsDoNotSizeTheVocabulary) {
  // Ids far apart are ordered, not used as indices (this once allocated 10^7 strings).
  const std::string sparse =
      R"({"model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "cat": 9999999, "##s": 2000000000}}})";
  auto t = TextTokenizer::fromTokenizerJson(sparse, "t.json", TokenizerKind::WordPiece);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->tokenize("cats", "text").value(), (std::vector<std::string>{"cat", "##s"}));
  // Past what an id can be (the library's are u32, ours int): one clear error.
  auto huge = TextTokenizer::fromTokenizerJson(
      R"({"model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "##s": 4000000000000}}})", "t.json",
      TokenizerKind::WordPiece);
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.error().message.find("t.json: vocabulary token '##s' has no valid id"), std::string::npos)
      << huge.error().message;
}

TEST(LoaderRegression, TokenizerJsonNamesStayOnOneLine) {
  for (const char* json : {R"({"model": {"type": "Uni\ngram", "vocab": {}}})",
                           R"({"model": {"type": "Uni\ngram"}})",
                           R"({"pre_tokenizer": {"type": "ByteLevel"},
                               "model": {"type": "BPE", "vocab": {}, "merges": ["a\nb"]}})"}) {
    auto t = TextTokenizer::fromTokenizerJson(json, "t.json", TokenizerKind::Bpe);
    ASSERT_FALSE(t.ok()) << json;
    EXPECT_EQ(t.error().message.find('\n'), std::string::npos) << t.error().message;
    EXPECT_EQ(t.error().message.rfind("t.json: ", 0), 0u) << t.error().message;
    EXPECT_NE(t.error().message.find("\\n"), std::string::npos) << t.error().message;  // the name, escaped
  }
}

TEST(LoaderRegression, SessionNumberOverflowIsAnErrorNotACrash) {
  // nlohmann throws out_of_range (not parse_error) for 1e400: it used to escape.
  auto s = sessionFromJson(R"({"format": "attnscope-session", "version": 1, "config": {"heads": 1e400}})",
                           "s.json");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "s.json: not valid JSON (a number is out of range)");
}

}  // namespace
}  // namespace attn
