#include "attn/tokenizers/hf/hf_tokenizer.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "attn/io/json_document.h"
#include "attn/io/quote.h"
#include "attn/io/utf8.h"
#include "attn/tokenizers/hf/hf_json.h"
#include "attn/tokenizers/hf/hf_normalized_string.h"
#include "attn/tokenizers/hf/hf_tokenizer_impl.h"
#include "attn/tokenizers/hf/hf_unicode.h"

namespace attn::models {
namespace {

bool hasType(const nlohmann::json& j, const std::string& type, const char* listKey) {
  if (!j.is_object()) return false;
  if (hfjson::str(j, "type") == type) return true;
  const auto it = j.find(listKey);
  if (it != j.end() && it->is_array())
    for (const auto& item : *it)
      if (hasType(item, type, listKey)) return true;
  return false;
}

/// The pipeline stages of `doc` around a model read or built already.
Result<HfTokenizer> assembleTokenizer(const nlohmann::json& doc, std::unique_ptr<HfModel> model,
                                      const std::string& source) {
  auto impl = std::make_shared<HfTokenizer::Impl>();
  impl->model = std::move(model);
  const nlohmann::json null;
  auto normalizer = parseNormalizer(doc.contains("normalizer") ? doc["normalizer"] : null, source);
  if (!normalizer) return normalizer.error();
  impl->normalizer = std::move(*normalizer);
  const nlohmann::json& pre = doc.contains("pre_tokenizer") ? doc["pre_tokenizer"] : null;
  auto preTokenizer = parsePreTokenizer(pre, source);
  if (!preTokenizer) return preTokenizer.error();
  impl->preTokenizer = std::move(*preTokenizer);
  auto post = PostProcessor::parse(doc.contains("post_processor") ? doc["post_processor"] : null, source);
  if (!post) return post.error();
  impl->post = std::move(*post);
  if (impl->model->isWordPiece()) impl->kind = HfKind::WordPiece;
  else if (hasType(pre, "ByteLevel", "pretokenizers")) impl->kind = HfKind::ByteLevelBpe;
  else impl->kind = HfKind::SentencePieceBpe;
  const std::string modelType = doc.contains("model") ? hfjson::str(doc["model"], "type") : std::string();
  if (modelType == "Unigram")
    impl->kindLabel = "SentencePiece Unigram";
  else if (modelType == "WordLevel")
    impl->kindLabel = "WordLevel";

  std::vector<AddedToken> added;
  if (doc.contains("added_tokens") && !doc["added_tokens"].is_null()) {
    const auto& list = doc["added_tokens"];
    if (!list.is_array()) return Error{source + ": \"added_tokens\" is not a list"};
    for (const auto& t : list) {
      if (!t.is_object() || !hfjson::hasString(t, "content") || !t.contains("id") || !t["id"].is_number_integer() ||
          t["id"].get<int64_t>() < 0 || t["id"].get<int64_t>() > hfjson::kMaxTokenId)
        return Error{source + ": an added token has no \"content\" or no valid \"id\""};
      AddedToken a;
      a.content = t["content"].get<std::string>();
      if (!isValidUtf8(a.content)) return Error{source + ": an added token is not UTF-8"};
      a.id = static_cast<int>(t["id"].get<int64_t>());
      a.special = hfjson::boolean(t, "special", false);
      a.normalized = hfjson::boolean(t, "normalized", !a.special);
      a.lstrip = hfjson::boolean(t, "lstrip", false);
      a.rstrip = hfjson::boolean(t, "rstrip", false);
      a.singleWord = hfjson::boolean(t, "single_word", false);
      added.push_back(std::move(a));
    }
  }
  impl->setAddedTokens(std::move(added));
  return makeHfTokenizer(std::move(impl));
}

Result<HfTokenizer> parseTokenizerJson(std::string_view json, const std::string& source) {
  auto parsed = parseJsonText(json, source);
  if (!parsed) return parsed.error();
  const nlohmann::json& doc = *parsed;
  if (!doc.is_object()) return Error{source + ": not a JSON object (is this a tokenizer.json?)"};
  if (!doc.contains("model")) return Error{source + ": no \"model\" (is this a tokenizer.json?)"};
  auto model = parseModel(doc["model"], source);
  if (!model) return model.error();
  return assembleTokenizer(doc, std::move(*model), source);
}

}  // namespace

Result<HfTokenizer> tokenizerAroundModel(const nlohmann::json& doc, std::unique_ptr<HfModel> model,
                                         const std::string& source) {
  try {
    return assembleTokenizer(doc, std::move(model), source);
  } catch (const std::exception& ex) {  // nlohmann type errors on fields a check missed
    return Error{fmt::format("{}: malformed tokenizer.json ({})", source, quoteForMessage(ex.what()))};
  }
}

namespace {

void appendBytesAsUtf8(std::string& out, const std::string& bytes) {
  // Byte-level tokens may hold part of a character: show U+FFFD for what does not decode.
  size_t i = 0;
  while (i < bytes.size()) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    const size_t len = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
    if (len > 0 && i + len <= bytes.size() && isValidUtf8(std::string_view(bytes).substr(i, len))) {
      out.append(bytes, i, len);
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
}

}  // namespace

void HfTokenizer::Impl::setAddedTokens(std::vector<AddedToken> tokens) {
  std::vector<std::string> forms;
  for (auto& t : tokens) {
    if (const auto id = model->tokenToId(t.content)) t.id = *id;
    addedById[t.id] = t.content;
    forms.push_back(normalizer && t.normalized && !t.special ? normalizedText(normalizer, t.content)
                                                             : t.content);
  }
  added.build(std::move(tokens), forms);
}

Encoding HfTokenizer::Impl::encodeOne(std::string_view text) const {
  Encoding e;
  auto emit = [&](int id, std::string token, NormalizedString::Span span) {
    e.ids.push_back(id);
    e.tokens.push_back(std::move(token));
    e.offsets.emplace_back(static_cast<int>(span.first), static_cast<int>(span.second));
  };
  auto runModel = [&](const PreToken& piece) {
    std::vector<PreToken> words = preTokenizer ? preTokenizer(piece) : std::vector<PreToken>{piece};
    std::vector<ModelToken> out;
    for (const auto& w : words) {
      if (w.text.empty()) continue;
      out.clear();
      model->tokenize(w.text.get(), out);
      for (auto& t : out) emit(t.id, std::move(t.token), w.text.originalRange(t.start, t.end));
    }
  };
  const auto& list = added.tokens();
  // 1. added tokens matched on the raw text; 2. the rest normalized, then the
  // normalized added tokens matched on it (AddedVocabulary::extract_and_normalize).
  for (const AddedSplit& raw : added.split(text, false)) {
    if (raw.token >= 0) {
      emit(list[static_cast<size_t>(raw.token)].id, std::string(text.substr(raw.start, raw.end - raw.start)),
           {raw.start, raw.end});
      continue;
    }
    NormalizedString piece =
        NormalizedString::fromOriginal(text.substr(raw.start, raw.end - raw.start), raw.start);
    if (normalizer) normalizer(piece);
    if (piece.empty()) continue;
    for (const AddedSplit& n : added.split(piece.get(), true)) {
      if (n.token >= 0) {
        emit(list[static_cast<size_t>(n.token)].id, piece.get().substr(n.start, n.end - n.start),
             piece.originalRange(n.start, n.end));
        continue;
      }
      if (n.end == n.start) continue;
      runModel({piece.slice(n.start, n.end), raw.start == 0 && n.start == 0});
    }
  }
  e.typeIds.assign(e.ids.size(), 0);
  e.special.assign(e.ids.size(), 0);
  return e;
}

std::vector<std::pair<int, int>> toCodePointOffsets(std::string_view text,
                                                    const std::vector<std::pair<int, int>>& byteOffsets) {
  // Every byte of a character maps to that character's index; an end past the last
  // byte is one past the index of the last byte's character.
  std::vector<int> charOf(text.size());
  int index = -1;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++index;
    charOf[i] = index;
  }
  auto inText = [&](int b) { return b >= 0 && static_cast<size_t>(b) < text.size(); };
  auto charAt = [&](int b) { return charOf[static_cast<size_t>(b)]; };
  std::vector<std::pair<int, int>> out;
  out.reserve(byteOffsets.size());
  for (const auto& [s, e] : byteOffsets) {
    if (inText(s) && inText(e))
      out.emplace_back(charAt(s), charAt(e));
    else if (inText(s))
      out.emplace_back(charAt(s), (inText(e - 1) ? charAt(e - 1) : charAt(s)) + 1);
    else
      out.emplace_back(s, e);  // the library keeps offsets it cannot convert
  }
  return out;
}

std::vector<int32_t> offsetRows(const Encoding& e) {
  std::vector<int32_t> rows;
  if (e.offsets.size() != e.ids.size()) return rows;
  rows.reserve(2 * e.offsets.size());
  for (const auto& [start, end] : e.offsets) {
    rows.push_back(start);
    rows.push_back(end);
  }
  return rows;
}

HfTokenizer makeHfTokenizer(std::shared_ptr<const HfTokenizer::Impl> impl) { return HfTokenizer(std::move(impl)); }

HfTokenizer::HfTokenizer() = default;
HfTokenizer::~HfTokenizer() = default;
HfTokenizer::HfTokenizer(HfTokenizer&&) noexcept = default;
HfTokenizer& HfTokenizer::operator=(HfTokenizer&&) noexcept = default;

Result<HfTokenizer> HfTokenizer::fromTokenizerJson(std::string_view json, const std::string& source) {
  try {
    return parseTokenizerJson(json, source);
  } catch (const std::exception& ex) {  // nlohmann type errors on fields a check missed
    return Error{fmt::format("{}: malformed tokenizer.json ({})", source, quoteForMessage(ex.what()))};
  }
}

Result<Encoding> HfTokenizer::encode(std::string_view text, std::optional<std::string_view> pair,
                                     bool addSpecialTokens, const std::string& source) const {
  if (!impl_) return Error{source + ": no tokenizer loaded"};
  if (const int64_t bad = firstInvalidUtf8(text); bad >= 0)
    return Error{fmt::format("{}: the text is not valid UTF-8 (byte offset {})", source, bad)};
  if (pair)
    if (const int64_t bad = firstInvalidUtf8(*pair); bad >= 0)
      return Error{fmt::format("{}: the second text is not valid UTF-8 (byte offset {})", source, bad)};
  try {
    Encoding a = impl_->encodeOne(text);
    impl_->post.trimOffsets(a, text);
    std::optional<Encoding> b;
    if (pair) {
      b = impl_->encodeOne(*pair);
      impl_->post.trimOffsets(*b, *pair);
    }
    return impl_->post.process(std::move(a), std::move(b), addSpecialTokens);
  } catch (const uni::RegexFailure& e) {
    return Error{uni::regexFailureMessage(e, source)};
  } catch (const std::runtime_error& e) {  // a model that reports a failure (SentencePiece's status)
    return Error{source + ": " + e.what()};
  }
}

std::string HfTokenizer::kindName() const {
  if (!impl_) return "";
  if (!impl_->kindLabel.empty()) return impl_->kindLabel;
  switch (impl_->kind) {
    case HfKind::WordPiece: return "WordPiece";
    case HfKind::ByteLevelBpe: return "byte-level BPE";
    case HfKind::SentencePieceBpe: return "SentencePiece BPE";
  }
  return "";
}

int HfTokenizer::idLimit() const {
  if (!impl_) return 0;
  int limit = impl_->model->idLimit();
  for (const auto& [id, content] : impl_->addedById) limit = std::max(limit, id + 1);
  return limit;
}

std::string HfTokenizer::idToToken(int id) const {
  if (!impl_) return "";
  if (const auto it = impl_->addedById.find(id); it != impl_->addedById.end()) return it->second;
  return impl_->model->idToToken(id);
}

int HfTokenizer::maskTokenId() const {
  if (!impl_) return -1;
  if (!impl_->maskToken.empty()) {
    for (const auto& [id, content] : impl_->addedById)
      if (content == impl_->maskToken) return id;
    if (auto id = impl_->model->tokenToId(impl_->maskToken)) return *id;
  }
  for (const char* name : {"[MASK]", "<mask>"}) {
    int best = -1;  // the smallest id, should a token appear twice
    for (const auto& [id, content] : impl_->addedById)
      if (content == name && (best < 0 || id < best)) best = id;
    if (best >= 0) return best;
  }
  return -1;
}

namespace {

/// A byte-level BPE token's bytes (GPT-2's printable alphabet mapped back), which may end
/// inside a UTF-8 character that the next token completes.
std::string byteLevelBytes(const std::string& token) {
  static const std::unordered_map<char32_t, unsigned char> reverse = [] {
    std::unordered_map<char32_t, unsigned char> r;
    const auto& table = byteLevelAlphabet();
    for (int b = 0; b < 256; ++b)
      r[(*utf8ToUtf32(table[static_cast<size_t>(b)]))[0]] = static_cast<unsigned char>(b);
    return r;
  }();
  std::string bytes;
  for (char32_t c : utf8ToUtf32(token).value_or(std::u32string())) {
    const auto it = reverse.find(c);
    if (it != reverse.end())
      bytes.push_back(static_cast<char>(it->second));
    else
      bytes += utf32ToUtf8(std::u32string(1, c));
  }
  return bytes;
}

}  // namespace

namespace {

/// The byte of a byte-fallback piece "<0xNN>", or -1.
int byteFallbackValue(const std::string& token) {
  if (token.size() != 6 || !token.starts_with("<0x") || token.back() != '>' ||
      !std::isxdigit(static_cast<unsigned char>(token[3])) ||
      !std::isxdigit(static_cast<unsigned char>(token[4])))
    return -1;
  return static_cast<int>(std::strtol(token.substr(3, 2).c_str(), nullptr, 16));
}

}  // namespace

std::string HfTokenizer::displayText(int id) const {
  if (!impl_) return "";
  if (const auto it = impl_->addedById.find(id); it != impl_->addedById.end()) return it->second;
  const std::string token = impl_->model->idToToken(id);
  switch (impl_->kind) {
    case HfKind::WordPiece:
      return token;
    case HfKind::ByteLevelBpe: {
      std::string out;
      appendBytesAsUtf8(out, byteLevelBytes(token));
      return out;
    }
    case HfKind::SentencePieceBpe: {
      if (const int b = byteFallbackValue(token); b >= 0) {
        if (b < 0x80) return std::string(1, static_cast<char>(b));
        return token;  // one byte of a longer character: nothing a reader could see
      }
      std::string out;
      for (size_t at = 0;;) {
        const size_t next = token.find("\xE2\x96\x81", at);
        out.append(token, at, next == std::string::npos ? std::string::npos : next - at);
        if (next == std::string::npos) break;
        out.push_back(' ');
        at = next + 3;
      }
      return out;
    }
  }
  return token;
}

std::string HfTokenizer::decode(const std::vector<int>& ids) const {
  std::string out;
  if (impl_ && impl_->kind == HfKind::ByteLevelBpe) {  // bytes first: a character may span two tokens
    std::string bytes;
    for (int id : ids) {
      if (const auto it = impl_->addedById.find(id); it != impl_->addedById.end())
        bytes += it->second;
      else
        bytes += byteLevelBytes(impl_->model->idToToken(id));
    }
    appendBytesAsUtf8(out, bytes);
    return out;
  }
  // tokenizers' ByteFallback decoder: a run of <0xNN> pieces is its bytes when they form UTF-8,
  // else one U+FFFD per byte (the whole run, as String::from_utf8 on it fails).
  std::string bytes;
  auto flushBytes = [&out, &bytes] {
    if (isValidUtf8(bytes)) {
      out += bytes;
    } else {
      for (size_t i = 0; i < bytes.size(); ++i) out += "\xEF\xBF\xBD";
    }
    bytes.clear();
  };
  for (int id : ids) {
    const int b = impl_ && impl_->kind == HfKind::SentencePieceBpe && !impl_->addedById.count(id)
                      ? byteFallbackValue(impl_->model->idToToken(id))
                      : -1;
    if (b >= 0) {
      bytes.push_back(static_cast<char>(b));
      continue;
    }
    flushBytes();
    out += displayText(id);
  }
  flushBytes();
  // SentencePiece's Metaspace decoder drops the space of the first word's "▁".
  if (impl_ && impl_->kind == HfKind::SentencePieceBpe && out.starts_with(' ')) out.erase(0, 1);
  return out;
}

}  // namespace attn::models
