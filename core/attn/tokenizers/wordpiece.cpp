#include "attn/tokenizers/wordpiece.h"

#include <fmt/format.h>

#include "attn/io/text_file.h"
#include "attn/io/utf8.h"
#include "attn/io/quote.h"
#include "attn/tokenizers/hf/hf_tokenizer.h"
#include "attn/tokenizers/hf/hf_tokenizer_impl.h"

namespace attn {
Status WordPieceTokenizer::rebuild(const std::string& source) {
  auto hf = models::makeBertWordPiece(vocab_, lowercase_, lowercase_, true, unk_, prefix_, "[SEP]", "[CLS]",
                                      {unk_, "[SEP]", "[PAD]", "[CLS]", "[MASK]"}, source);
  if (!hf) return hf.error();
  hf_ = std::make_shared<const models::HfTokenizer>(std::move(hf).value());
  return okStatus();
}

Status WordPieceTokenizer::setContinuationPrefix(std::string p) {
  prefix_ = std::move(p);
  return rebuild("vocabulary");
}

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
  if (auto built = t.rebuild(source); !built) return built.error();
  return t;
}

std::vector<std::string> WordPieceTokenizer::tokenize(std::string_view text) const {
  if (!hf_) return {};
  auto e = hf_->encode(text, std::nullopt, false, "text");
  if (!e) return {};  // not UTF-8: callers validate and report
  return std::move(e->tokens);
}

}  // namespace attn
