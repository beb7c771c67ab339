#include "attn/tokenizers/wordpiece.h"

#include <fmt/format.h>

#include "attn/io/text_file.h"
#include "attn/io/utf8.h"
#include "attn/quote.h"
#include "attn/tokenizers/char_tokenizer.h"

namespace attn {
namespace {

// Lower case and base letter for Latin-1, Greek and Cyrillic capitals; what
// BERT's uncased normalizer (lowercase, NFD, drop combining marks) gives for
// the precomposed letters of those blocks.
char32_t foldUncased(char32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;  // Greek capitals
  if (c >= 0x410 && c <= 0x42F) return c + 32;                 // Cyrillic А-Я
  if (c >= 0x400 && c <= 0x40F) c += 80;                       // Cyrillic Ѐ-Џ -> ѐ-џ
  if (c == 0x439) return 0x438;                                // й -> и (breve dropped)
  if (c == 0x451) return 0x435;                                // ё -> е
  if (c >= 0xC0 && c <= 0xFF) {
    // À..ÿ without accents; 0 = keep as is (Æ, Ð, ×, Þ, ß, ...), lowercased if a capital.
    static const char kBase[] = "aaaaaa\0ceeeeiiii\0nooooo\0\0uuuuy\0\0aaaaaa\0ceeeeiiii\0nooooo\0\0uuuuy\0y";
    const char b = kBase[c - 0xC0];
    if (b) return static_cast<char32_t>(b);
    if (c <= 0xDE && c != 0xD7) return c + 32;
  }
  return c;
}

}  // namespace

Result<WordPieceTokenizer> WordPieceTokenizer::fromVocabFile(const std::string& path) {
  auto text = readUtf8TextFile(path);
  if (!text) return text.error();
  return fromVocabText(*text, path);
}

Result<WordPieceTokenizer> WordPieceTokenizer::fromVocabText(std::string_view text, const std::string& source) {
  std::vector<std::string> vocab;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!(end == text.size() && line.empty())) vocab.push_back(std::move(line));
    start = end + 1;
  }
  return fromVocab(std::move(vocab), source);
}

Result<WordPieceTokenizer> WordPieceTokenizer::fromVocab(std::vector<std::string> vocab, const std::string& source,
                                                         int lowercase, std::string unknown) {
  WordPieceTokenizer t;
  t.unk_ = std::move(unknown);
  bool upper = false;
  for (size_t i = 0; i < vocab.size(); ++i) {
    const std::string& tok = vocab[i];
    if (tok.empty()) continue;
    t.vocab_.emplace(tok, static_cast<int>(i));
    const bool special = tok.front() == '[' && tok.back() == ']';
    if (!special)
      for (char c : tok)
        if (c >= 'A' && c <= 'Z') upper = true;
  }
  if (t.vocab_.empty()) return Error{source + ": the vocabulary is empty"};
  if (!t.vocab_.count(t.unk_))
    return Error{fmt::format("{}: the vocabulary has no unknown token {}", source, quoteForMessage(t.unk_))};
  t.lowercase_ = lowercase < 0 ? !upper : lowercase != 0;
  return t;
}

std::vector<std::string> WordPieceTokenizer::tokenize(std::string_view text) const {
  if (!utf8ToUtf32(text)) return {};
  std::vector<std::string> out;
  for (const std::string& original : tokenizeChars(text)) {
    if (original.starts_with("[") && vocab_.count(original)) {  // "[PAD]", "[CLS]": never lowercased
      out.push_back(original);
      continue;
    }
    const std::u32string decoded = utf8ToUtf32(original).value_or(std::u32string());
    std::u32string chars;
    for (char32_t c : decoded)
      if (!lowercase_) chars.push_back(c);
      else if (!(c >= 0x300 && c <= 0x36F)) chars.push_back(foldUncased(c));  // drop combining accents
    if (chars.empty()) continue;
    if (chars.size() > maxCharsPerWord_) {
      out.push_back(unk_);
      continue;
    }
    std::vector<std::string> pieces;
    size_t start = 0;
    bool bad = false;
    while (start < chars.size()) {
      size_t end = chars.size();
      std::string found;
      for (; end > start; --end) {
        std::string piece = utf32ToUtf8(chars.substr(start, end - start));
        if (start > 0) piece = prefix_ + piece;
        if (vocab_.count(piece)) {
          found = std::move(piece);
          break;
        }
      }
      if (found.empty()) {
        bad = true;
        break;
      }
      pieces.push_back(std::move(found));
      start = end;
    }
    if (bad) out.push_back(unk_);
    else out.insert(out.end(), pieces.begin(), pieces.end());
  }
  return out;
}

}  // namespace attn
