#include "attn/tokenizers/hf/hf_post_processor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "attn/io/quote.h"
#include "attn/io/utf8.h"
#include "attn/tokenizers/hf/hf_json.h"
#include "attn/tokenizers/hf/hf_unicode.h"

namespace attn::models {
namespace {

void append(Encoding& to, const Encoding& from) {
  to.ids.insert(to.ids.end(), from.ids.begin(), from.ids.end());
  to.tokens.insert(to.tokens.end(), from.tokens.begin(), from.tokens.end());
  to.typeIds.insert(to.typeIds.end(), from.typeIds.begin(), from.typeIds.end());
  to.special.insert(to.special.end(), from.special.begin(), from.special.end());
  to.offsets.insert(to.offsets.end(), from.offsets.begin(), from.offsets.end());
}

void appendSpecial(Encoding& to, const std::vector<int>& ids, const std::vector<std::string>& tokens, int typeId) {
  for (size_t i = 0; i < ids.size(); ++i) {
    to.ids.push_back(ids[i]);
    to.tokens.push_back(i < tokens.size() ? tokens[i] : std::string());
    to.typeIds.push_back(typeId);
    to.special.push_back(1);
    to.offsets.emplace_back(0, 0);
  }
}

Result<std::pair<std::string, int>> parseTokenPair(const nlohmann::json& j, const char* key, const std::string& source) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_array() || it->size() != 2 || !(*it)[0].is_string() || !(*it)[1].is_number_integer() ||
      (*it)[1].get<int64_t>() < 0 || (*it)[1].get<int64_t>() > hfjson::kMaxTokenId)
    return Error{fmt::format("{}: post_processor \"{}\" is not [token, id]", source, key)};
  return std::make_pair((*it)[0].get<std::string>(), static_cast<int>((*it)[1].get<int64_t>()));
}

}  // namespace

PostProcessor PostProcessor::bert(std::string cls, int clsId, std::string sep, int sepId) {
  PostProcessor p;
  p.kind_ = Kind::Bert;
  p.cls_ = std::move(cls);
  p.sep_ = std::move(sep);
  p.clsId_ = clsId;
  p.sepId_ = sepId;
  return p;
}

PostProcessor PostProcessor::roberta(std::string cls, int clsId, std::string sep, int sepId) {
  PostProcessor p = bert(std::move(cls), clsId, std::move(sep), sepId);
  p.kind_ = Kind::Roberta;
  return p;
}

Result<PostProcessor> PostProcessor::parse(const nlohmann::json& j, const std::string& source, int depth) {
  PostProcessor p;
  if (j.is_null()) return p;
  if (!j.is_object()) return Error{source + ": \"post_processor\" is not an object"};
  const std::string type = hfjson::str(j, "type");
  if (type == "ByteLevel") {  // only trims offsets
    if (hfjson::boolean(j, "trim_offsets", true)) p.addTrim(hfjson::boolean(j, "add_prefix_space", true));
    return p;
  }
  if (type == "BertProcessing" || type == "RobertaProcessing") {
    auto sep = parseTokenPair(j, "sep", source);
    if (!sep) return sep.error();
    auto cls = parseTokenPair(j, "cls", source);
    if (!cls) return cls.error();
    if (type == "BertProcessing") return bert(cls->first, cls->second, sep->first, sep->second);
    p = roberta(cls->first, cls->second, sep->first, sep->second);
    if (hfjson::boolean(j, "trim_offsets", true)) p.addTrim(hfjson::boolean(j, "add_prefix_space", true));
    return p;
  }
  if (type == "Sequence") {
    // ByteLevel entries only trim offsets; the last processor that adds tokens decides.
    const auto list = j.find("processors");
    if (list == j.end() || !list->is_array()) return Error{source + ": Sequence post_processor without \"processors\""};
    if (depth >= hfjson::kMaxSequenceDepth)
      return Error{fmt::format("{}: Sequence post_processors nested deeper than {} levels", source,
                               hfjson::kMaxSequenceDepth)};
    std::vector<bool> trims;
    for (const auto& item : *list) {
      auto q = parse(item, source, depth + 1);
      if (!q) return q.error();
      trims.insert(trims.end(), q->trims_.begin(), q->trims_.end());
      if (q->kind_ != Kind::None) p = std::move(*q);
    }
    p.trims_ = std::move(trims);
    return p;
  }
  if (type != "TemplateProcessing")
    return Error{fmt::format("{}: unsupported post_processor type {}", source, quoteForMessage(type))};
  p.kind_ = Kind::Template;
  const auto specials = j.find("special_tokens");
  if (specials != j.end() && specials->is_object()) {
    for (const auto& [name, v] : specials->items()) {
      Special s;
      s.name = name;
      if (!v.is_object() || !v.contains("ids") || !v["ids"].is_array())
        return Error{fmt::format("{}: template special token {} has no \"ids\"", source, quoteForMessage(name))};
      for (const auto& id : v["ids"]) {
        if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > hfjson::kMaxTokenId)
          return Error{fmt::format("{}: template special token {} has a bad id", source, quoteForMessage(name))};
        s.ids.push_back(static_cast<int>(id.get<int64_t>()));
      }
      if (v.contains("tokens") && v["tokens"].is_array())
        for (const auto& t : v["tokens"]) s.tokens.push_back(t.is_string() ? t.get<std::string>() : std::string());
      if (s.tokens.size() != s.ids.size())
        return Error{fmt::format("{}: template special token {} has {} ids but {} tokens", source,
                                 quoteForMessage(name), s.ids.size(), s.tokens.size())};
      p.special_.push_back(std::move(s));
    }
  }
  // Token type ids index BERT's token_type_embeddings (2 rows in practice); anything that is not a
  // small non-negative integer is a malformed file, not a value to wrap into an int.
  auto typeIdOf = [](const nlohmann::json& s, int& out) {
    out = 0;
    if (!s.contains("type_id")) return true;
    const auto& t = s["type_id"];
    if (!t.is_number_integer()) return false;
    if (t.is_number_unsigned() ? t.get<std::uint64_t>() > 255
                               : (t.get<std::int64_t>() < 0 || t.get<std::int64_t>() > 255))
      return false;
    out = t.get<int>();
    return true;
  };
  auto badTypeId = [&](const char* key) -> Status {
    return Error{
        fmt::format("{}: template \"{}\" has a type_id that is not an integer from 0 to 255", source, key)};
  };
  auto parsePieces = [&](const char* key, std::vector<Piece>& out) -> Status {
    const auto list = j.find(key);
    if (list == j.end() || list->is_null()) return okStatus();
    if (!list->is_array()) return Error{fmt::format("{}: template \"{}\" is not a list", source, key)};
    for (const auto& item : *list) {
      Piece piece{};
      if (item.is_object() && item.contains("Sequence") && item["Sequence"].is_object()) {
        const auto& s = item["Sequence"];
        const std::string id = hfjson::str(s, "id", "A");
        if (id != "A" && id != "B") return Error{fmt::format("{}: template sequence {} is not A or B", source, quoteForMessage(id))};
        piece.isSequence = true;
        piece.sequence = id == "A" ? 0 : 1;
        if (!typeIdOf(s, piece.typeId)) return badTypeId(key);
      } else if (item.is_object() && item.contains("SpecialToken") && item["SpecialToken"].is_object()) {
        const auto& s = item["SpecialToken"];
        piece.isSequence = false;
        piece.name = hfjson::str(s, "id");
        if (!typeIdOf(s, piece.typeId)) return badTypeId(key);
        bool known = false;
        for (const auto& sp : p.special_) known = known || sp.name == piece.name;
        if (!known)
          return Error{fmt::format("{}: template uses special token {} missing from \"special_tokens\"", source,
                                   quoteForMessage(piece.name))};
      } else {
        return Error{fmt::format("{}: template \"{}\" has an item that is neither Sequence nor SpecialToken", source, key)};
      }
      out.push_back(std::move(piece));
    }
    return okStatus();
  };
  if (auto s = parsePieces("single", p.single_); !s) return s.error();
  if (auto s = parsePieces("pair", p.pair_); !s) return s.error();
  p.hasPair_ = j.contains("pair") && j["pair"].is_array();
  return p;
}

namespace {

bool isTrimmedSpace(char32_t c) { return c == 0x120 || uni::isWhitespace(c); }  // "Ġ", byte-level ' '

/// `from` moved `n` characters forward (backward if `n` < 0) in valid UTF-8 `text`.
size_t moveChars(std::string_view text, size_t from, long n) {
  for (; n > 0 && from < text.size(); --n) do
      ++from;
    while (from < text.size() && (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80);
  for (; n < 0 && from > 0; ++n) do
      --from;
    while (from > 0 && (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80);
  return from;
}

size_t charIndex(std::string_view text, size_t byte) {
  size_t n = 0;
  for (size_t i = 0; i < byte && i < text.size(); ++i)
    n += (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
  return n;
}

}  // namespace

// byte_level.rs process_offsets, in characters as the library's offsets are by then.
void PostProcessor::trimOffsets(Encoding& e, std::string_view text) const {
  for (const bool addPrefixSpace : trims_) {
    for (size_t i = 0; i < e.tokens.size() && i < e.offsets.size(); ++i) {
      const std::u32string tok = utf8ToUtf32(e.tokens[i]).value_or(std::u32string());
      size_t lead = 0, trail = 0;
      while (lead < tok.size() && isTrimmedSpace(tok[lead])) ++lead;
      while (trail < tok.size() && isTrimmedSpace(tok[tok.size() - 1 - trail])) ++trail;
      auto& [start, end] = e.offsets[i];
      if (lead > 0) {
        const bool isFirst = i == 0 || start == 0;
        if (isFirst && addPrefixSpace && lead == 1) lead = 0;
        start = std::min(
            static_cast<int>(moveChars(text, static_cast<size_t>(start), static_cast<long>(lead))), end);
      }
      if (trail > 0 && charIndex(text, static_cast<size_t>(end)) >= trail)
        end = std::max(static_cast<int>(moveChars(text, static_cast<size_t>(end), -static_cast<long>(trail))),
                       start);
    }
  }
}

Encoding PostProcessor::process(Encoding a, std::optional<Encoding> b, bool addSpecialTokens) const {
  a.typeIds.assign(a.ids.size(), 0);
  // RoBERTa has no segment embeddings that differ: its processor gives B type 0 even
  // without special tokens (checked against the library).
  if (b) b->typeIds.assign(b->ids.size(), kind_ == Kind::Roberta ? 0 : 1);
  Encoding out;
  if (kind_ == Kind::Template && (!b || hasPair_)) {
    // The template sets the type ids of $A and $B even without special tokens.
    for (const Piece& piece : b ? pair_ : single_) {
      if (piece.isSequence) {
        Encoding& e = piece.sequence == 0 ? a : *b;
        if (piece.sequence == 1 && !b) continue;
        e.typeIds.assign(e.ids.size(), piece.typeId);
        append(out, e);
      } else if (addSpecialTokens) {
        for (const auto& sp : special_)
          if (sp.name == piece.name) appendSpecial(out, sp.ids, sp.tokens, piece.typeId);
      }
    }
    return out;
  }
  if (!addSpecialTokens || kind_ == Kind::None || kind_ == Kind::Template) {
    append(out, a);
    if (b) append(out, *b);
    return out;
  }
  appendSpecial(out, {clsId_}, {cls_}, 0);
  append(out, a);
  appendSpecial(out, {sepId_}, {sep_}, 0);
  if (b) {
    const int t = kind_ == Kind::Bert ? 1 : 0;
    if (kind_ == Kind::Roberta) appendSpecial(out, {sepId_}, {sep_}, 0);
    append(out, *b);
    appendSpecial(out, {sepId_}, {sep_}, t);
  }
  return out;
}

}  // namespace attn::models
