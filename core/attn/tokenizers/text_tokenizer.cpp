#include "attn/tokenizers/text_tokenizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "attn/io/text_file.h"
#include "attn/io/utf8.h"
#include "attn/quote.h"
#include "attn/tokenizer.h"
#include "attn/tokenizers/bpe.h"
#include "attn/tokenizers/char_tokenizer.h"
#include "attn/tokenizers/wordpiece.h"

namespace attn {
namespace {

// The pre-tokenizer or any step of a Sequence is ByteLevel.
bool usesByteLevel(const nlohmann::json& pre) {
  if (!pre.is_object()) return false;
  if (pre.value("type", "") == "ByteLevel") return true;
  if (pre.contains("pretokenizers") && pre["pretokenizers"].is_array())
    for (const auto& p : pre["pretokenizers"])
      if (usesByteLevel(p)) return true;
  return false;
}

Result<std::function<std::vector<std::string>(std::string_view)>> tokenizerFromJson(std::string_view text,
                                                                                    const std::string& path,
                                                                                    TokenizerKind want) {
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("model") || !doc["model"].is_object())
    return Error{path + ": not a Hugging Face tokenizer.json (no \"model\" object)"};
  const auto& model = doc["model"];
  const std::string type = model.value("type", "");
  if (!model.contains("vocab") || !model["vocab"].is_object())
    return Error{fmt::format("{}: model of type {} has no vocab object", path, quoteForMessage(type))};
  if (type == "WordPiece" && want == TokenizerKind::WordPiece) {
    // Tokens in id order; ids need not be dense (only their order matters here,
    // and a sparse id must not size a vector).
    std::vector<std::pair<uint64_t, std::string>> byId;
    for (const auto& [tok, id] : model["vocab"].items()) {
      if (!id.is_number_unsigned())
        return Error{fmt::format("{}: token {} has no valid id", path, quoteForMessage(tok))};
      byId.emplace_back(id.get<uint64_t>(), tok);
    }
    std::sort(byId.begin(), byId.end());
    std::vector<std::string> vocab;
    vocab.reserve(byId.size());
    for (auto& [id, tok] : byId) vocab.push_back(std::move(tok));
    int lower = -1;
    if (doc.contains("normalizer") && doc["normalizer"].is_object() && doc["normalizer"].contains("lowercase"))
      lower = doc["normalizer"]["lowercase"].get<bool>() ? 1 : 0;
    const std::string unk = model.contains("unk_token") ? model["unk_token"].get<std::string>() : "[UNK]";
    auto wp = WordPieceTokenizer::fromVocab(std::move(vocab), path, lower, unk);
    if (!wp) return wp.error();
    if (model.contains("continuing_subword_prefix"))
      wp->setContinuationPrefix(model["continuing_subword_prefix"].get<std::string>());
    auto shared = std::make_shared<WordPieceTokenizer>(std::move(wp).value());
    return std::function<std::vector<std::string>(std::string_view)>(
        [shared](std::string_view s) { return shared->tokenize(s); });
  }
  if (type == "BPE" && want == TokenizerKind::Bpe) {
    if (!usesByteLevel(doc.value("pre_tokenizer", nlohmann::json())))
      return Error{path + ": only byte-level BPE (GPT-2 style, ByteLevel pre-tokenizer) is supported"};
    std::unordered_map<std::string, int> vocab;
    for (const auto& [tok, id] : model["vocab"].items())
      if (id.is_number_integer()) vocab.emplace(tok, id.get<int>());
    std::vector<std::pair<std::string, std::string>> merges;
    if (!model.contains("merges") || !model["merges"].is_array())
      return Error{path + ": BPE model has no merges list"};
    for (const auto& m : model["merges"]) {
      if (m.is_string()) {  // "a b"
        const std::string s = m.get<std::string>();
        const size_t sp = s.find(' ');
        if (sp == std::string::npos) return Error{fmt::format("{}: merge {} is not two symbols", path, quoteForMessage(s))};
        merges.emplace_back(s.substr(0, sp), s.substr(sp + 1));
      } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {  // ["a", "b"]
        merges.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
      } else {
        return Error{path + ": a merge is neither \"a b\" nor [\"a\", \"b\"]"};
      }
    }
    auto bpe = BpeTokenizer::fromMerges(std::move(merges), std::move(vocab), path);
    if (!bpe) return bpe.error();
    auto shared = std::make_shared<BpeTokenizer>(std::move(bpe).value());
    return std::function<std::vector<std::string>(std::string_view)>(
        [shared](std::string_view s) { return shared->tokenize(s); });
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
        auto text = readUtf8TextFile(c.tokenizerJsonFile, int64_t{512} << 20);
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
  auto tokens = fn_(text);
  if (tokens.empty()) return Error{source + ": the text has no tokens"};
  return tokens;
}

}  // namespace attn
