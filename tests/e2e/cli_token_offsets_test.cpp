// End-to-end: the token_offsets that `run --model` writes and the source_token_offsets of
// `translate`, on texts with accented, curly-quoted and CJK characters. Each array is [N, 2]
// int32, (0, 0) for the special tokens the post-processor adds, and every other row is the
// bytes of the original UTF-8 text that the token's own decoding comes from, worked out here
// from the token strings alone: WordPiece pieces without "##" found left to right; byte-level
// BPE tokens decoded through GPT-2's bytes_to_unicode table, their bytes consecutive in the
// text, a part of a character widened to the whole character (Hugging Face aligns each byte
// to its character), trimmed of spaces where the post-processor says trim_offsets;
// SentencePiece pieces with "▁" as a space, the first one's dummy prefix in no text. A count
// of characters instead of bytes, or a row off by one, fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cli_runner.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

using Rows = std::vector<std::pair<int, int>>;

/// Appends code point `cp` to `out` as UTF-8.
void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/// The code points of a UTF-8 string (the fixtures' token strings are valid UTF-8).
std::vector<uint32_t> codePoints(const std::string& s) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    const int n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    uint32_t cp = n == 1 ? b : b & (0xFF >> (n + 1));
    for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out.push_back(cp);
    i += static_cast<size_t>(n);
  }
  return out;
}

/// GPT-2's bytes_to_unicode (openai/gpt-2 encoder.py), inverted: the printable bytes stand for
/// themselves, the other 68 for 256, 257, ... in byte order.
std::string byteLevelDecode(const std::string& token) {
  std::vector<int> byteOf(512, -1);
  int next = 256;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    byteOf[static_cast<size_t>(printable ? b : next++)] = b;
  }
  std::string out;
  for (uint32_t cp : codePoints(token)) {
    EXPECT_TRUE(cp < 512 && byteOf[cp] >= 0) << token;
    if (cp < 512 && byteOf[cp] >= 0) out += static_cast<char>(byteOf[cp]);
  }
  return out;
}

bool continuation(const std::string& text, int at) {
  return at < static_cast<int>(text.size()) &&
         (static_cast<unsigned char>(text[static_cast<size_t>(at)]) & 0xC0) == 0x80;
}

/// Byte-level BPE: the tokens' bytes laid end to end from byte 0 of the text.
Rows byteLevelRows(const std::string& text, const std::vector<std::string>& tokens,
                   const std::set<std::string>& specials, bool trimOffsets) {
  Rows rows;
  int at = 0;
  for (const auto& t : tokens) {
    if (specials.count(t)) {
      rows.emplace_back(0, 0);
      continue;
    }
    const std::string bytes = byteLevelDecode(t);
    int start = at, end = at + static_cast<int>(bytes.size());
    EXPECT_EQ(text.substr(static_cast<size_t>(at), bytes.size()), bytes) << t;
    at = end;
    while (continuation(text, start)) --start;  // a character's later bytes: the whole character
    while (continuation(text, end)) ++end;
    if (trimOffsets) {
      while (start < end && text[static_cast<size_t>(start)] == ' ') ++start;
      while (end > start && text[static_cast<size_t>(end - 1)] == ' ') --end;
    }
    rows.emplace_back(start, end);
  }
  EXPECT_EQ(at, static_cast<int>(text.size())) << "the tokens' bytes are the whole text";
  return rows;
}

/// WordPiece on text the normalizer leaves alone: each piece (without "##") is the next
/// bytes after any spaces.
Rows wordPieceRows(const std::string& text, const std::vector<std::string>& tokens,
                   const std::set<std::string>& specials) {
  Rows rows;
  size_t at = 0;
  for (const auto& t : tokens) {
    if (specials.count(t)) {
      rows.emplace_back(0, 0);
      continue;
    }
    const std::string piece = t.rfind("##", 0) == 0 ? t.substr(2) : t;
    while (at < text.size() && text[at] == ' ') ++at;
    EXPECT_EQ(text.substr(at, piece.size()), piece) << t;
    rows.emplace_back(static_cast<int>(at), static_cast<int>(at + piece.size()));
    at += piece.size();
  }
  return rows;
}

/// SentencePiece: the pieces with "▁" as a space spell " " + the text (the dummy prefix).
Rows sentencePieceRows(const std::string& text, const std::vector<std::string>& tokens,
                       const std::set<std::string>& specials) {
  Rows rows;
  int at = -1;  // the dummy prefix's space is in no text
  for (const auto& t : tokens) {
    if (specials.count(t)) {
      rows.emplace_back(0, 0);
      continue;
    }
    std::string surface;
    for (uint32_t cp : codePoints(t)) appendUtf8(surface, cp == 0x2581 ? ' ' : cp);
    const int start = std::max(at, 0), end = at + static_cast<int>(surface.size());
    EXPECT_EQ(text.substr(static_cast<size_t>(start), static_cast<size_t>(end - start)),
              surface.substr(static_cast<size_t>(start - at)))
        << t;
    rows.emplace_back(start, end);
    at = end;
  }
  EXPECT_EQ(at, static_cast<int>(text.size()));
  return rows;
}

/// The [N, 2] int32 array `name` of `npz`, checked for its shape and type.
Rows offsetsOf(const std::map<std::string, NpyArray>& npz, const std::string& name, size_t tokens) {
  EXPECT_TRUE(npz.count(name)) << name;
  if (!npz.count(name)) return {};
  const auto& a = npz.at(name);
  EXPECT_EQ(a.descr, "<i4") << name;
  EXPECT_EQ(a.values.shape, (std::vector<int64_t>{static_cast<int64_t>(tokens), 2})) << name;
  Rows rows;
  for (size_t i = 0; i + 1 < a.values.data.size(); i += 2)
    rows.emplace_back(static_cast<int>(a.values.data[i]), static_cast<int>(a.values.data[i + 1]));
  return rows;
}

std::vector<std::string> tokensOf(const std::map<std::string, NpyArray>& npz, const std::string& name) {
  EXPECT_TRUE(npz.count(name)) << name;
  return npz.count(name) ? npz.at(name).strings : std::vector<std::string>{};
}

// WordPiece (the uncased BERT fixture: [CLS] … [SEP]), on CJK characters (one token each) and
// the words after them.
TEST(CliTokenOffsets, RunWritesWordPieceOffsetsInBytes) {
  const auto dir = scratchDir("offsets_bert");
  const std::string text = "北京和中文。the cat sat 你好吗";
  const auto out = (dir / "b.npz").string();
  const auto r = runCli({"run", "--model", modelDir("bert"), "--text", text, "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto npz = loadNpz(out);
  const auto tokens = tokensOf(npz, "tokens");
  ASSERT_GE(tokens.size(), 12u);
  EXPECT_EQ(tokens.front(), "[CLS]");
  EXPECT_EQ(tokens[1], "北");
  const Rows got = offsetsOf(npz, "token_offsets", tokens.size());
  EXPECT_EQ(got, wordPieceRows(text, tokens, {"[CLS]", "[SEP]"}));
  EXPECT_EQ(got[1], (std::pair{0, 3}));  // 北 is three bytes, not one character

  // Accents the normalizer strips: the token reads "cafe", its offsets cover "Café"'s 5 bytes.
  const auto accents = (dir / "a.npz").string();
  ASSERT_EQ(runCli({"run", "--model", modelDir("bert"), "--text", "Café naïve", "--out", accents}).status, 0);
  const auto a = loadNpz(accents);
  EXPECT_EQ(tokensOf(a, "tokens"), (std::vector<std::string>{"[CLS]", "cafe", "naive", "[SEP]"}));
  EXPECT_EQ(offsetsOf(a, "token_offsets", 4), (Rows{{0, 0}, {0, 5}, {6, 12}, {0, 0}}));
}

// Byte-level BPE (the GPT-2 fixture's vocab.json + merges.txt, no special tokens, no trimming):
// its small vocabulary splits ’, — and é into single bytes.
TEST(CliTokenOffsets, RunWritesByteLevelOffsetsInBytes) {
  const auto dir = scratchDir("offsets_gpt2");
  const std::string text = "The café’s menu — naïve 中文 test.";
  const auto out = (dir / "g.npz").string();
  const auto r = runCli({"run", "--model", modelDir("gpt2"), "--text", text, "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto npz = loadNpz(out);
  const auto tokens = tokensOf(npz, "tokens");
  ASSERT_GE(tokens.size(), 10u);
  const Rows got = offsetsOf(npz, "token_offsets", tokens.size());
  const Rows want = byteLevelRows(text, tokens, {}, false);
  EXPECT_EQ(got, want);
  // Some token holds part of a character: its row is the whole character, as in the library.
  bool partial = false;
  for (size_t i = 0; i < tokens.size(); ++i)
    partial |= static_cast<size_t>(want[i].second - want[i].first) > byteLevelDecode(tokens[i]).size();
  EXPECT_TRUE(partial);
}

// translate's source: byte-level BPE with <s> … </s> and trim_offsets (the BART fixture), and
// SentencePiece with </s> (the Marian fixture's source.spm).
TEST(CliTokenOffsets, TranslateWritesSourceOffsetsInBytes) {
  const auto dir = scratchDir("offsets_translate");
  const std::string text = "The café’s menu — naïve 中文 test.";
  const auto bartOut = (dir / "bart.npz").string();
  const auto r = runCli({"translate", "--model", modelDir("bart"), "--text", text, "--out", bartOut});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto bart = loadNpz(bartOut);
  const auto tokens = tokensOf(bart, "source_tokens");
  ASSERT_GE(tokens.size(), 3u);
  EXPECT_EQ(tokens.front(), "<s>");
  EXPECT_EQ(tokens.back(), "</s>");
  const Rows got = offsetsOf(bart, "source_token_offsets", tokens.size());
  EXPECT_EQ(got, byteLevelRows(text, tokens, {"<s>", "</s>"}, true));
  EXPECT_EQ(got[2], (std::pair{4, 5}));  // "Ġc": the space trimmed off

  const auto marianOut = (dir / "marian.npz").string();
  const auto m = runCli({"translate", "--model", modelDir("marian"), "--text", text, "--out", marianOut});
  ASSERT_EQ(m.status, 0) << m.err;
  const auto marian = loadNpz(marianOut);
  const auto pieces = tokensOf(marian, "source_tokens");
  ASSERT_GE(pieces.size(), 3u);
  EXPECT_EQ(pieces.back(), "</s>");
  EXPECT_EQ(offsetsOf(marian, "source_token_offsets", pieces.size()),
            sentencePieceRows(text, pieces, {"</s>"}));
}

}  // namespace
}  // namespace attn::test
