#include "attn/tokenizers/text_tokenizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "attn/io/json_document.h"
#include "attn/io/quote.h"
#include "attn/io/regular_file.h"
#include "attn/io/text_file.h"
#include "attn/io/utf8.h"
#include "attn/tokenizers/bpe.h"
#include "attn/tokenizers/char_tokenizer.h"
#include "attn/tokenizers/hf/hf_tokenizer.h"
#include "attn/tokenizers/hf/hf_unicode.h"
#include "attn/tokenizers/tokenizer.h"
#include "attn/tokenizers/wordpiece.h"

namespace attn {
namespace {

Result<std::function<std::vector<std::string>(std::string_view)>> tokenizerFromJson(std::string_view text,
                                                                                    const std::string& path,
                                                                                    TokenizerKind want) {
  auto parsed = parseJsonText(text, path);
  if (!parsed) return parsed.error();
  const nlohmann::json& doc = *parsed;
  if (!doc.is_object() || !doc.contains("model") || !doc["model"].is_object())
    return Error{path + ": not a Hugging Face tokenizer.json (no \"model\" object)"};
  const auto& model = doc["model"];
  const std::string type = model.value("type", "");
  if (!model.contains("vocab") || !model["vocab"].is_object())
    return Error{fmt::format("{}: model of type {} has no vocab object", path, quoteForMessage(type))};
  if ((type == "WordPiece" && want == TokenizerKind::WordPiece) || (type == "BPE" && want == TokenizerKind::Bpe)) {
    // The whole tokenizer.json pipeline, exactly as Hugging Face's library runs it.
    auto hf = models::HfTokenizer::fromTokenizerJson(text, path);
    if (!hf) return hf.error();
    auto shared = std::make_shared<const models::HfTokenizer>(std::move(hf).value());
    return std::function<std::vector<std::string>(std::string_view)>([shared](std::string_view s) {
      auto e = shared->encode(s, std::nullopt, false, "text");
      if (!e) throw std::runtime_error(e.error().message);  // tokenize() reports it: no partial tokens
      return std::move(e->tokens);
    });
  }
  return Error{fmt::format("{}: holds a {} model, not what --tokenizer {} needs", path, quoteForMessage(type),
                           tokenizerKindName(want))};
}

}  // namespace

std::optional<TokenizerKind> parseTokenizerKind(std::string_view name) {
  if (name == "words") return TokenizerKind::Words;
  if (name == "chars") return TokenizerKind::Chars;
  if (name == "wordpiece") return TokenizerKind::WordPiece;
  if (name == "bpe") return TokenizerKind::Bpe;
  return std::nullopt;
}

std::string_view tokenizerKindName(TokenizerKind k) {
  switch (k) {
    case TokenizerKind::Words: return "words";
    case TokenizerKind::Chars: return "chars";
    case TokenizerKind::WordPiece: return "wordpiece";
    case TokenizerKind::Bpe: return "bpe";
  }
  return "words";
}

Result<TextTokenizer> TextTokenizer::create(const TokenizerConfig& c) {
  TextTokenizer t;
  t.kind_ = c.kind;
  switch (c.kind) {
    case TokenizerKind::Words:
      t.fn_ = [](std::string_view s) { return tokenizeWords(s); };
      return t;
    case TokenizerKind::Chars:
      t.fn_ = [](std::string_view s) { return tokenizeChars(s); };
      return t;
    case TokenizerKind::WordPiece:
    case TokenizerKind::Bpe: {
      if (!c.tokenizerJsonFile.empty()) {
        auto text = readUtf8TextFile(c.tokenizerJsonFile, file_limit::kTokenizerJson);
        if (!text) return text.error();
        return fromTokenizerJson(*text, c.tokenizerJsonFile, c.kind);
      }
      if (c.kind == TokenizerKind::WordPiece) {
        if (c.vocabFile.empty()) return Error{"--tokenizer wordpiece needs --vocab vocab.txt or --tokenizer-json"};
        auto wp = WordPieceTokenizer::fromVocabFile(c.vocabFile);
        if (!wp) return wp.error();
        auto shared = std::make_shared<WordPieceTokenizer>(std::move(wp).value());
        t.fn_ = [shared](std::string_view s) { return shared->tokenize(s); };
        return t;
      }
      if (c.vocabFile.empty() || c.mergesFile.empty())
        return Error{"--tokenizer bpe needs --vocab vocab.json and --merges merges.txt, or --tokenizer-json"};
      auto bpe = BpeTokenizer::fromFiles(c.vocabFile, c.mergesFile);
      if (!bpe) return bpe.error();
      auto shared = std::make_shared<BpeTokenizer>(std::move(bpe).value());
      t.fn_ = [shared](std::string_view s) { return shared->tokenize(s); };
      return t;
    }
  }
  return Error{"unknown tokenizer"};
}

Result<TextTokenizer> TextTokenizer::fromTokenizerJson(std::string_view json, const std::string& source,
                                                     TokenizerKind kind) {
  if (kind != TokenizerKind::WordPiece && kind != TokenizerKind::Bpe)
    return Error{fmt::format("{}: a tokenizer.json holds a wordpiece or bpe model, not {}", source,
                             tokenizerKindName(kind))};
  Result<std::function<std::vector<std::string>(std::string_view)>> fn = Error{""};
  try {
    fn = tokenizerFromJson(json, source, kind);
  } catch (const nlohmann::json::exception& e) {  // a field of the wrong JSON type
    return Error{fmt::format("{}: malformed tokenizer.json ({})", source, e.what())};
  }
  if (!fn) return fn.error();
  TextTokenizer t;
  t.kind_ = kind;
  t.fn_ = std::move(fn).value();
  return t;
}

Result<std::vector<std::string>> TextTokenizer::tokenize(std::string_view text, const std::string& source) const {
  if (const int64_t bad = firstInvalidUtf8(text); bad >= 0)
    return Error{fmt::format("{}: not valid UTF-8 text (byte offset {})", source, bad)};
  std::vector<std::string> tokens;
  try {
    tokens = fn_(text);
  } catch (const models::uni::RegexFailure& e) {  // no partial tokens: the pattern's engine gave up
    return Error{models::uni::regexFailureMessage(e, source)};
  } catch (const std::runtime_error& e) {  // a tokenizer.json pipeline's own error, already one line
    return Error{e.what()};
  }
  if (tokens.empty()) return Error{source + ": the text has no tokens"};
  return tokens;
}

}  // namespace attn
