// Tokenizers on known inputs with known splits. The BPE expectations come
// from GPT-2's reference algorithm (encoder.py's bytes_to_unicode and bpe),
// run by tests/scripts/gen_input_fixtures.py over the committed vocabulary.
#include "attn/tokenizers/tokenizer.h"

#include <gtest/gtest.h>

#include <string>

#include "attn/tokenizers/bpe.h"
#include "attn/tokenizers/char_tokenizer.h"
#include "attn/tokenizers/text_tokenizer.h"
#include "attn/tokenizers/wordpiece.h"

namespace attn {
namespace {

using Tokens = std::vector<std::string>;
std::string tok(const std::string& name) { return std::string(ATTN_FIXTURE_DIR) + "/tokenizers/" + name; }

TEST(CharTokenizer, CjkPerCharacterLatinPerWord) {
  EXPECT_EQ(tokenizeChars("我爱猫。The cat, sat!"), (Tokens{"我", "爱", "猫", "。", "The", "cat", ",", "sat", "!"}));
  EXPECT_EQ(tokenizeChars("东京タワー は"), (Tokens{"东", "京", "タ", "ワ", "ー", "は"}));
  EXPECT_EQ(tokenizeChars("naïve café — «Привет», мир"),
            (Tokens{"naïve", "café", "—", "«", "Привет", "»", ",", "мир"}));
  EXPECT_EQ(tokenizeChars("猫（ねこ）"), (Tokens{"猫", "（", "ね", "こ", "）"}));
  EXPECT_TRUE(tokenizeChars(" \t\n").empty());
}

TEST(WordPiece, SplitsUnknownWordsIntoContinuationPieces) {
  auto wp = WordPieceTokenizer::fromVocabFile(tok("bert_vocab.txt"));
  ASSERT_TRUE(wp.ok()) << wp.error().message;
  EXPECT_TRUE(wp->lowercase());  // no upper-case pieces: an uncased vocabulary
  EXPECT_EQ(wp->tokenize("The cat sat unaffable, playing!"),
            (Tokens{"the", "cat", "sat", "un", "##aff", "##able", ",", "play", "##ing", "!"}));
  // Accents stripped as BERT-uncased does; "mats" = "mat" + "##s".
  EXPECT_EQ(wp->tokenize("Café on MATS."), (Tokens{"cafe", "on", "mat", "##s", "."}));
  // A word that cannot be built from pieces is one [UNK], not a partial split.
  EXPECT_EQ(wp->tokenize("unknownword cat"), (Tokens{"[UNK]", "cat"}));
  EXPECT_EQ(wp->tokenize("我爱猫狗"), (Tokens{"我", "爱", "猫", "[UNK]"}));
}

TEST(WordPiece, TokenizerJsonGivesTheSameSplits) {
  auto t = TextTokenizer::create({TokenizerKind::WordPiece, "", "", tok("wordpiece_tokenizer.json")});
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto r = t->tokenize("The cat sat unaffable, playing!", "--text");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (Tokens{"the", "cat", "sat", "un", "##aff", "##able", ",", "play", "##ing", "!"}));
}

TEST(Bpe, ByteToUnicodeTableMatchesGpt2) {
  const auto& t = BpeTokenizer::byteToUnicode();
  EXPECT_EQ(t[' '], "Ġ");   // U+0120
  EXPECT_EQ(t['\n'], "Ċ");  // U+010A
  EXPECT_EQ(t['A'], "A");
  EXPECT_EQ(t[0xE7], "ç");
  EXPECT_EQ(t[0x8C], "Į");  // U+012E
  EXPECT_EQ(t[0xAD], "Ń");  // soft hyphen: the 68th unprintable byte, U+0100 + 67
}

TEST(Bpe, PreTokenizerFollowsGpt2Pattern) {
  EXPECT_EQ(BpeTokenizer::preTokenize("the cat's  world\n猫 42x"),
            (Tokens{"the", " cat", "'s", " ", " world", "\n", "猫", " 42", "x"}));
  EXPECT_EQ(BpeTokenizer::preTokenize("hello\n\n  world "), (Tokens{"hello", "\n\n ", " world", " "}));
}

TEST(Bpe, AppliesMergesByRankWithByteLevelTokens) {
  auto bpe = BpeTokenizer::fromFiles(tok("gpt2_vocab.json"), tok("gpt2_merges.txt"));
  ASSERT_TRUE(bpe.ok()) << bpe.error().message;
  // "h e" outranks "e ll", so "hello" never becomes "h" + "ello".
  EXPECT_EQ(bpe->tokenize("hello the world!"), (Tokens{"he", "ll", "o", "Ġthe", "Ġworld", "!"}));
  EXPECT_EQ(bpe->tokenize("the cat's  world\n猫 42x"),
            (Tokens{"t", "he", "Ġ", "c", "a", "t", "'s", "Ġ", "Ġworld", "Ċ", "çĮ«", "Ġ", "4", "2", "x"}));
  EXPECT_EQ(bpe->tokenize("hello\n\n  world "), (Tokens{"he", "ll", "o", "Ċ", "Ċ", "Ġ", "Ġworld", "Ġ"}));
}

TEST(Bpe, TokenizerJsonGivesTheSameSplits) {
  auto t = TextTokenizer::create({TokenizerKind::Bpe, "", "", tok("bpe_tokenizer.json")});
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto r = t->tokenize("hello the world!", "--text");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (Tokens{"he", "ll", "o", "Ġthe", "Ġworld", "!"}));
}

TEST(Bpe, VocabJsonIsAFlatObjectOfIds) {
  auto ok = parseVocabJson(R"({"a": 0, "\u00e9t\u00e9": 7, "b": 2147483646, "a": 3})", "v.json");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->size(), 3u);
  EXPECT_EQ(ok->at("a"), 3);  // a repeated key: the last id, as the DOM's object
  EXPECT_EQ(ok->at("\xc3\xa9t\xc3\xa9"), 7);
  EXPECT_EQ(ok->at("b"), 2147483646);
  const auto message = [](std::string_view text) {
    auto r = parseVocabJson(text, "v.json");
    return r ? std::string("(parsed)") : r.error().message;
  };
  const std::string notObject = "v.json: not a JSON object of {token: id} (is this a GPT-2 vocab.json?)";
  EXPECT_EQ(message("[1, 2]"), notObject);
  EXPECT_EQ(message("12"), notObject);
  EXPECT_EQ(message(R"({"a": 1, "bb": 1.5})"), "v.json: token 'bb' has no valid id");
  EXPECT_EQ(message(R"({"a": -1})"), "v.json: token 'a' has no valid id");
  EXPECT_EQ(message(R"({"a": 2147483647})"), "v.json: token 'a' has no valid id");
  EXPECT_EQ(message(R"({"a": 99999999999999999999})"), "v.json: token 'a' has no valid id");
  EXPECT_EQ(message(R"({"a": {"b": 1}})"), "v.json: token 'a' has no valid id");
  EXPECT_EQ(message(R"({"a": [1]})"), "v.json: token 'a' has no valid id");
  EXPECT_EQ(message(R"({"a": "1"})"), "v.json: token 'a' has no valid id");
  EXPECT_EQ(message(R"({"a": null})"), "v.json: token 'a' has no valid id");
  EXPECT_EQ(message(R"({"a": 1} x)").rfind("v.json: not valid JSON (byte ", 0), 0u);
  EXPECT_EQ(message(R"({"a": 1)").rfind("v.json: not valid JSON (byte ", 0), 0u);
  EXPECT_EQ(message("").rfind("v.json: not valid JSON (byte ", 0), 0u);
  EXPECT_EQ(message(R"({"a": 1e400})").rfind("v.json: not valid JSON", 0), 0u);
  // Deep nesting stops at the second level, without recursion.
  EXPECT_EQ(message(R"({"a": )" + std::string(100000, '[')), "v.json: token 'a' has no valid id");
}

TEST(TextTokenizer, ErrorsNameTheFileOrOption) {
  auto words = TextTokenizer::create({});
  ASSERT_TRUE(words.ok());
  auto bad = words->tokenize("Caf\xE9 au lait", "notes.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "notes.txt: not valid UTF-8 text (byte offset 3)");
  EXPECT_FALSE(words->tokenize("  ", "--text").ok());

  auto noVocab = TextTokenizer::create({TokenizerKind::WordPiece, "", "", ""});
  ASSERT_FALSE(noVocab.ok());
  EXPECT_NE(noVocab.error().message.find("--vocab"), std::string::npos);
  auto wrongModel = TextTokenizer::create({TokenizerKind::Bpe, "", "", tok("wordpiece_tokenizer.json")});
  ASSERT_FALSE(wrongModel.ok());
  EXPECT_NE(wrongModel.error().message.find("'WordPiece' model"), std::string::npos) << wrongModel.error().message;
  auto missing = TextTokenizer::create({TokenizerKind::Bpe, tok("nope.json"), tok("gpt2_merges.txt"), ""});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("nope.json"), std::string::npos);
  auto notMerges = TextTokenizer::create({TokenizerKind::Bpe, tok("gpt2_vocab.json"), tok("bert_vocab.txt"), ""});
  ASSERT_FALSE(notMerges.ok());
  EXPECT_NE(notMerges.error().message.find("bert_vocab.txt: line 1"), std::string::npos)
      << notMerges.error().message;
}

TEST(TextTokenizer, KindNamesRoundTrip) {
  for (auto k : {TokenizerKind::Words, TokenizerKind::Chars, TokenizerKind::WordPiece, TokenizerKind::Bpe})
    EXPECT_EQ(parseTokenizerKind(tokenizerKindName(k)), k);
  EXPECT_FALSE(parseTokenizerKind("sentencepiece").has_value());
}

}  // namespace
}  // namespace attn
