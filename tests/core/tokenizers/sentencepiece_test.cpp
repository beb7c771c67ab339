// SentencePiece .model files (core/attn/tokenizers/spm) against Debian's
// python3-sentencepiece: tests/scripts/spm/gen_spm_fixtures.py trains a T5-style
// Unigram and a Llama-2-style BPE model and writes the library's ids, pieces and
// byte offsets for a multilingual list of texts; all must be identical. The
// precompiled charsmap is checked against Unicode's NFKC, the HfTokenizer
// wrapping against transformers' slow tokenizers' special-token rules.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "attn/tokenizers/hf/hf_tokenizer.h"
#include "attn/tokenizers/spm/model_proto_scan.h"
#include "attn/tokenizers/spm/precompiled_charsmap.h"
#include "attn/tokenizers/spm/sentencepiece_model.h"

namespace {

namespace fs = std::filesystem;
using attn::models::HfTokenizer;
using attn::models::PrecompiledCharsmap;
using attn::models::SentencePieceModel;

const std::string kSpmDir = std::string(ATTN_FIXTURE_DIR) + "/spm";

std::string readSpmFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json spmExpected(const std::string& name) {
  return nlohmann::json::parse(readSpmFile(kSpmDir + "/" + name + "/expected.json"));
}

std::string modelPath(const std::string& name) {
  return kSpmDir + "/" + name + "/" + spmExpected(name)["model_file"].get<std::string>();
}

class SentencePieceFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(SentencePieceFixture, MatchesTheLibraryOnEveryText) {
  const auto want = spmExpected(GetParam());
  auto model = SentencePieceModel::fromFile(modelPath(GetParam()));
  ASSERT_TRUE(model.ok()) << model.error().message;
  EXPECT_EQ(model->pieceCount(), want["piece_size"].get<int>());
  EXPECT_EQ(model->unkId(), want["unk_id"].get<int>());
  EXPECT_EQ(model->bosId(), want["bos_id"].get<int>());
  EXPECT_EQ(model->eosId(), want["eos_id"].get<int>());
  EXPECT_EQ(model->padId(), want["pad_id"].get<int>());
  const auto pieces = want["pieces"].get<std::vector<std::string>>();
  for (int id = 0; id < model->pieceCount(); ++id) {
    EXPECT_EQ(model->idToPiece(id), pieces[static_cast<size_t>(id)]);
    EXPECT_EQ(model->pieceToId(pieces[static_cast<size_t>(id)]), id);
  }
  EXPECT_EQ(model->idToPiece(-1), "");
  EXPECT_EQ(model->idToPiece(model->pieceCount()), "");
  EXPECT_FALSE(model->pieceToId("no such piece at all").has_value());
  ASSERT_GE(want["cases"].size(), 25u);
  for (const auto& c : want["cases"]) {
    const std::string text = c["text"];
    auto got = model->encode(text, "--text");
    ASSERT_TRUE(got.ok()) << got.error().message;
    std::vector<int> ids;
    std::vector<std::string> strs;
    std::vector<std::vector<size_t>> offsets;
    for (const auto& p : *got) {
      ids.push_back(p.id);
      strs.push_back(p.piece);
      offsets.push_back({p.begin, p.end});
    }
    const std::string shown = nlohmann::json(text).dump();
    EXPECT_EQ(ids, c["ids"].get<std::vector<int>>()) << shown;
    EXPECT_EQ(strs, c["pieces"].get<std::vector<std::string>>()) << shown;
    EXPECT_EQ(offsets, c["offsets"].get<std::vector<std::vector<size_t>>>()) << shown;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SentencePieceFixture, ::testing::Values("unigram", "bpe"));

TEST(SentencePieceModel, AlgorithmComesFromTheTrainerSpec) {
  auto unigram = SentencePieceModel::fromFile(modelPath("unigram"));
  auto bpe = SentencePieceModel::fromFile(modelPath("bpe"));
  ASSERT_TRUE(unigram.ok() && bpe.ok());
  EXPECT_EQ(unigram->algorithm(), "Unigram");
  EXPECT_EQ(bpe->algorithm(), "BPE");
  EXPECT_TRUE(bpe->isByte(*bpe->pieceToId("<0x0A>")));
  EXPECT_TRUE(bpe->isControl(bpe->bosId()));
  EXPECT_FALSE(bpe->isControl(*bpe->pieceToId("<0x0A>")));
}

TEST(SentencePieceModel, NonUtf8TextNamesTheOffset) {
  auto model = SentencePieceModel::fromFile(modelPath("bpe"));
  ASSERT_TRUE(model.ok());
  auto e = model->encode("ab\xff", "input.txt");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("input.txt"), std::string::npos) << e.error().message;
  EXPECT_NE(e.error().message.find("byte offset 2"), std::string::npos) << e.error().message;
}

void expectRefused(const attn::Result<SentencePieceModel>& r, const std::string& names,
                   const std::string& fault) {
  ASSERT_FALSE(r.ok()) << names;
  const std::string& m = r.error().message;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_NE(m.find(names), std::string::npos) << m;
  EXPECT_NE(m.find(fault), std::string::npos) << m;
}

TEST(SentencePieceModel, BadFilesGiveOneMessageNamingTheFile) {
  const fs::path dir = fs::temp_directory_path() / ("attn_spm_bad_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir / name, std::ios::binary) << bytes;
    return (dir / name).string();
  };
  expectRefused(SentencePieceModel::fromFile((dir / "missing.model").string()), "missing.model", "");
  expectRefused(SentencePieceModel::fromFile(dir.string()), dir.string(), "");
  expectRefused(SentencePieceModel::fromFile(write("empty.model", "")), "empty.model", "empty");
  expectRefused(SentencePieceModel::fromFile(write("text.model", "{\"model\": \"not protobuf\"}\n")),
                "text.model", "not a SentencePiece model");
  const std::string real = readSpmFile(modelPath("bpe"));
  expectRefused(SentencePieceModel::fromFile(write("cut.model", real.substr(0, real.size() / 2))),
                "cut.model", "not a SentencePiece model");
  // A well-formed protobuf that is no model: one varint field.
  expectRefused(SentencePieceModel::fromFile(write("varint.model", std::string("\x08\x01", 2))),
                "varint.model", "no pieces");
  // Every piece field empty: protobuf parses, the library refuses (its status, not an abort).
  expectRefused(SentencePieceModel::fromFile(write("hollow.model", std::string("\x0a\x00\x0a\x00", 4))),
                "hollow.model", "not a usable SentencePiece model");
  // Past the size limit, refused before reading (a sparse file).
  const std::string big = write("big.model", "");
  fs::resize_file(big, (int64_t{64} << 20) + 1);
  expectRefused(SentencePieceModel::fromFile(big), "big.model", "");
  fs::remove_all(dir);
}

// The nmt_nfkc charsmap inside the Unigram fixture, found by the wire walk.
std::string unigramCharsmap() {
  static const std::string bytes = readSpmFile(modelPath("unigram"));
  auto facts = attn::models::scanModelProto(bytes, "spiece.model");
  EXPECT_TRUE(facts.ok());
  if (!facts.ok()) return {};
  EXPECT_EQ(facts->modelType, 1);
  for (auto m : facts->charsmaps)
    if (!m.empty()) return std::string(m);
  ADD_FAILURE() << "no charsmap";
  return {};
}

TEST(PrecompiledCharsmap, GivesNfkcOfTheTrainersRules) {
  auto map = PrecompiledCharsmap::parse(unigramCharsmap(), "spiece.model");
  ASSERT_TRUE(map.ok()) << map.error().message;
  EXPECT_EQ(map->unitCount() % 256, 0u);  // darts-clone grows in blocks of 256 units
  // NFKC (Unicode UAX #15) of each: compatibility forms decompose.
  const std::vector<std::pair<std::string, std::string>> nfkc = {
      {"\xE2\x91\xA0", "1"},    // ① CIRCLED DIGIT ONE
      {"\xEF\xAC\x81", "fi"},   // ﬁ LATIN SMALL LIGATURE FI
      {"\xE2\x85\xAB", "XII"},  // Ⅻ ROMAN NUMERAL TWELVE
      {"\xEF\xBC\xA1", "A"},    // Ａ FULLWIDTH LATIN CAPITAL LETTER A
      {"\xC2\xB2", "2"},        // ² SUPERSCRIPT TWO
  };
  for (const auto& [in, out] : nfkc) {
    const auto [replacement, length] = map->longestPrefix(in + "tail");
    EXPECT_EQ(length, in.size()) << in;
    EXPECT_EQ(replacement, out) << in;
  }
  EXPECT_EQ(map->longestPrefix("plain ascii").second, 0u);
  EXPECT_EQ(map->longestPrefix("").second, 0u);
}

TEST(PrecompiledCharsmap, RefusesBlobsThatWouldReadOutside) {
  const std::string good = unigramCharsmap();
  auto refused = [](const std::string& blob, const std::string& fault) {
    auto r = PrecompiledCharsmap::parse(blob, "x.model");
    ASSERT_FALSE(r.ok()) << fault;
    EXPECT_NE(r.error().message.find("x.model: precompiled charsmap"), std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().message.find(fault), std::string::npos) << r.error().message;
  };
  refused("", "shorter than");
  refused(std::string("\x10\x00\x00", 3), "shorter than");
  std::string tooLong = good;
  tooLong[3] = '\x7F';  // the trie size claims ~2 GB
  refused(tooLong, "the trie claims");
  refused(std::string("\x04\x00\x00\x00\x00\x00\x00\x00", 8), "root lies outside");
  // The strings cut before their last NUL: some replacement now runs off the end.
  refused(good.substr(0, good.rfind('\0')), "replacement");
}

TEST(HfTokenizerFromSentencePiece, LlamaFolderAddsBosAndMatchesSpecialPieces) {
  const auto want = spmExpected("bpe");
  auto tok = HfTokenizer::fromFolder(kSpmDir + "/bpe", "llama");
  ASSERT_TRUE(tok.ok()) << tok.error().message;
  EXPECT_EQ(tok->kindName(), "SentencePiece BPE (tokenizer.model)");
  EXPECT_EQ(tok->idLimit(), want["piece_size"].get<int>());
  const auto& hello = want["cases"][0];
  ASSERT_EQ(hello["text"], "Hello world");
  auto e = tok->encode("Hello world", std::nullopt, true, "--text");
  ASSERT_TRUE(e.ok()) << e.error().message;
  std::vector<int> ids{want["bos_id"].get<int>()};
  for (int id : hello["ids"]) ids.push_back(id);
  EXPECT_EQ(e->ids, ids);
  EXPECT_EQ(e->special.front(), 1);
  e = tok->encode("Hello world", std::nullopt, false, "--text");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->ids, hello["ids"].get<std::vector<int>>());
  // "</s>" written in the text is the EOS token, not its characters.
  e = tok->encode("a</s>", std::nullopt, false, "--text");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->ids.back(), want["eos_id"].get<int>());
}

TEST(HfTokenizerFromSentencePiece, OffsetsAreTheLibrarysByteSpans) {
  for (const std::string name : {"bpe", "unigram"}) {
    const auto want = spmExpected(name);
    auto tok = HfTokenizer::fromFolder(kSpmDir + "/" + name, name == "bpe" ? "llama" : "t5");
    ASSERT_TRUE(tok.ok()) << tok.error().message;
    int compared = 0;
    for (const auto& c : want["cases"]) {
      const std::string text = c["text"];
      auto e = tok->encode(text, std::nullopt, true, "--text");
      ASSERT_TRUE(e.ok()) << e.error().message;
      ASSERT_EQ(e->offsets.size(), e->ids.size());
      std::vector<int> ids;
      std::vector<std::vector<size_t>> offsets;
      for (size_t i = 0; i < e->ids.size(); ++i) {
        if (e->special[i]) {
          EXPECT_EQ(e->offsets[i], std::make_pair(0, 0)) << "BOS / EOS added by the template";
          continue;
        }
        ids.push_back(e->ids[i]);
        offsets.push_back(
            {static_cast<size_t>(e->offsets[i].first), static_cast<size_t>(e->offsets[i].second)});
      }
      if (ids != c["ids"].get<std::vector<int>>()) continue;  // special pieces written in the text split it
      EXPECT_EQ(offsets, c["offsets"].get<std::vector<std::vector<size_t>>>()) << nlohmann::json(text).dump();
      ++compared;
    }
    EXPECT_GE(compared, 20) << name;
  }
}

TEST(HfTokenizerFromSentencePiece, T5FolderAppendsEos) {
  const auto want = spmExpected("unigram");
  auto tok = HfTokenizer::fromFolder(kSpmDir + "/unigram", "t5");
  ASSERT_TRUE(tok.ok()) << tok.error().message;
  EXPECT_EQ(tok->kindName(), "SentencePiece Unigram (spiece.model)");
  const auto& c = want["cases"][1];
  auto e = tok->encode(c["text"].get<std::string>(), std::string_view("Hello world"), true, "--text");
  ASSERT_TRUE(e.ok()) << e.error().message;
  std::vector<int> ids = c["ids"].get<std::vector<int>>();
  ids.push_back(want["eos_id"].get<int>());
  for (int id : want["cases"][0]["ids"]) ids.push_back(id);
  ids.push_back(want["eos_id"].get<int>());
  EXPECT_EQ(e->ids, ids);
  EXPECT_EQ(e->typeIds, std::vector<int>(ids.size(), 0));
}

TEST(HfTokenizerFromSentencePiece, CorruptModelInAFolderNamesIt) {
  const fs::path dir = fs::temp_directory_path() / ("attn_spm_folder_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "tokenizer.model", std::ios::binary) << "\xff\xff\xff garbage";
  auto tok = HfTokenizer::fromFolder(dir.string(), "llama");
  ASSERT_FALSE(tok.ok());
  EXPECT_NE(tok.error().message.find("tokenizer.model"), std::string::npos) << tok.error().message;
  EXPECT_NE(tok.error().message.find("not a SentencePiece model"), std::string::npos) << tok.error().message;
  fs::remove_all(dir);
}

}  // namespace

namespace {

/// A Marian tokenizer folder from the marian fixture's files with vocab.json's ids remapped.
std::string marianFolderWith(const std::string& name, const std::function<int(int)>& remap,
                             const std::vector<std::pair<std::string, int>>& extra) {
  const std::string from = std::string(ATTN_FIXTURE_DIR) + "/models/marian";
  const fs::path dir =
      fs::temp_directory_path() / ("attn_marian_vocab_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* f : {"source.spm", "tokenizer_config.json"}) fs::copy_file(fs::path(from) / f, dir / f);
  nlohmann::json vocab = nlohmann::json::parse(readSpmFile(from + "/vocab.json")),
                 out = nlohmann::json::object();
  for (const auto& [piece, id] : vocab.items()) out[piece] = remap(id.get<int>());
  for (const auto& [piece, id] : extra) out[piece] = id;
  std::ofstream(dir / "vocab.json") << out.dump();
  return dir.string();
}

}  // namespace

// Marian's vocab.json gives the ids (MarianTokenizer._convert_token_to_id); the reverse map for
// decoding is a table when ids are dense and a hash map when they are not (ids far past the
// entry count), and two pieces on one id decode to the smaller, in both.
TEST(MarianVocab, DenseAndSparseIdsGiveTheSameTokens) {
  const std::string text = "The animal didn't cross the street.";
  auto plain = HfTokenizer::fromFolder(std::string(ATTN_FIXTURE_DIR) + "/models/marian", "marian");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  auto want = plain->encode(text, std::nullopt, true, "the text");
  ASSERT_TRUE(want.ok());
  ASSERT_GT(want->ids.size(), 4u);
  for (const int scale : {1, 100000}) {
    const std::string dir = marianFolderWith(std::to_string(scale), [scale](int id) { return id * scale; },
                                             {{"zz-alias-of-3", 3 * scale}, {"\x01 alias", 5 * scale}});
    auto tok = HfTokenizer::fromFolder(dir, "marian");
    ASSERT_TRUE(tok.ok()) << tok.error().message;
    auto got = tok->encode(text, std::nullopt, true, "the text");
    ASSERT_TRUE(got.ok());
    ASSERT_EQ(got->ids.size(), want->ids.size());
    for (size_t i = 0; i < want->ids.size(); ++i) {
      EXPECT_EQ(got->ids[i], want->ids[i] * scale) << i;
      EXPECT_EQ(got->tokens[i], want->tokens[i]) << i;
      EXPECT_EQ(tok->idToToken(got->ids[i]), plain->idToToken(want->ids[i])) << i;
    }
    EXPECT_EQ(tok->idToToken(3 * scale), plain->idToToken(3));  // "s" < "zz-alias-of-3"
    EXPECT_EQ(tok->idToToken(5 * scale), "\x01 alias");         // smaller than "a"
    EXPECT_EQ(tok->idToToken(-1), "");
    if (scale > 1) EXPECT_EQ(tok->idToToken(7 * scale + 1), "");  // between two sparse ids
    fs::remove_all(dir);
  }
}
