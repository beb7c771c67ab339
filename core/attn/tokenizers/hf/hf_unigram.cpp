// tokenizer.json "Unigram" (Kudo 2018: the segmentation of highest total log
// probability, found by Viterbi over every vocabulary piece that matches) and
// "WordLevel" (one id per whole pre-token), as the `tokenizers` library's
// models/unigram/model.rs (encode_optimized, tokenize) and models/wordlevel.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "attn/io/quote.h"
#include "attn/io/utf8.h"
#include "attn/tokenizers/hf/hf_json.h"
#include "attn/tokenizers/hf/hf_models.h"

namespace attn::models {
namespace {

/// The library's K_UNK_PENALTY: an unknown character scores this far below the worst piece.
constexpr double kUnkPenalty = 10.0;

size_t utf8CharLen(unsigned char b) {
  return b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : 4;
}

/// A byte trie over the pieces: children keyed by (node, byte).
class PieceTrie {
 public:
  void insert(const std::string& piece, int id) {
    int node = 0;
    for (unsigned char c : piece) {
      const uint64_t key = (static_cast<uint64_t>(node) << 8) | c;
      auto it = children_.find(key);
      if (it == children_.end()) {
        it = children_.emplace(key, static_cast<int>(ends_.size())).first;
        ends_.push_back(-1);
      }
      node = it->second;
    }
    ends_[static_cast<size_t>(node)] = id;
  }
  /// Calls f(length, id) for every piece that is a prefix of `text`.
  template <class F>
  void prefixes(std::string_view text, F f) const {
    int node = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      const auto it =
          children_.find((static_cast<uint64_t>(node) << 8) | static_cast<unsigned char>(text[i]));
      if (it == children_.end()) return;
      node = it->second;
      if (ends_[static_cast<size_t>(node)] >= 0) f(i + 1, ends_[static_cast<size_t>(node)]);
    }
  }

 private:
  std::unordered_map<uint64_t, int> children_;
  std::vector<int> ends_{-1};
};

class UnigramModel final : public HfModel {
 public:
  UnigramModel(std::vector<std::pair<std::string, double>> vocab, std::optional<int> unk, bool byteFallback)
      : vocab_(std::move(vocab)), unk_(unk), byteFallback_(byteFallback) {
    for (size_t id = 0; id < vocab_.size(); ++id) {
      ids_[vocab_[id].first] = static_cast<int>(id);  // a later duplicate wins, as the library's map
      minScore_ = std::min(minScore_, vocab_[id].second);
    }
    for (const auto& [piece, id] : ids_) trie_.insert(piece, id);
  }
  bool isWordPiece() const override { return false; }
  bool byteFallback() const override { return byteFallback_; }
  std::optional<int> tokenToId(const std::string& token) const override {
    const auto it = ids_.find(token);
    return it == ids_.end() ? std::nullopt : std::optional<int>(it->second);
  }
  std::string idToToken(int id) const override {
    return id >= 0 && static_cast<size_t>(id) < vocab_.size() ? vocab_[static_cast<size_t>(id)].first
                                                              : std::string();
  }
  int idLimit() const override { return static_cast<int>(vocab_.size()); }

  void tokenize(const std::string& word, std::vector<ModelToken>& out) const override {
    size_t at = 0;  // pieces are consecutive: each covers its own bytes of the word
    for (const std::string& s : bestSegmentation(word)) {
      const size_t start = at, end = at + s.size();
      at = end;
      if (const auto id = tokenToId(s)) {
        out.push_back({*id, s, start, end});
        continue;
      }
      if (byteFallback_) {
        std::vector<ModelToken> bytes;
        for (unsigned char b : s) {
          std::string name = fmt::format("<0x{:02X}>", b);
          const auto id = tokenToId(name);
          if (!id) break;
          bytes.push_back({*id, std::move(name), start, end});  // each byte token: the whole piece
        }
        if (bytes.size() == s.size()) {
          for (auto& t : bytes) out.push_back(std::move(t));
          continue;
        }
      }
      if (!unk_) throw std::runtime_error("the Unigram model has no unk_id for " + quoteForMessage(s, 40));
      out.push_back({*unk_, s, start, end});  // the library keeps the text as the token's value
    }
  }

 private:
  // encode_optimized: best path ending at each byte; a character no piece starts
  // with gets the unknown score; consecutive unknowns are fused.
  std::vector<std::string> bestSegmentation(const std::string& s) const {
    struct Best {
      int id = -1;
      double score = 0;
      size_t start = 0;
      bool set = false;
    };
    std::vector<Best> best(s.size() + 1);
    const double unkScore = minScore_ - kUnkPenalty;
    for (size_t at = 0; at < s.size();) {
      const double here = best[at].score;
      const size_t charLen = std::min(utf8CharLen(static_cast<unsigned char>(s[at])), s.size() - at);
      bool single = false;
      trie_.prefixes(std::string_view(s).substr(at), [&](size_t len, int id) {
        Best& target = best[at + len];
        const double candidate = vocab_[static_cast<size_t>(id)].second + here;
        if (!target.set || candidate > target.score) target = {id, candidate, at, true};
        single = single || len == charLen;
      });
      if (!single) {
        Best& target = best[at + charLen];
        const double candidate = unkScore + here;
        if (!target.set || candidate > target.score) {
          if (!unk_) throw std::runtime_error("the Unigram model has no unk_id for an unknown character");
          target = {*unk_, candidate, at, true};
        }
      }
      at += charLen;
    }
    std::vector<std::string> pieces;
    std::string fused;
    for (size_t end = s.size(); end > 0;) {
      const Best& node = best[end];
      std::string text = s.substr(node.start, end - node.start);
      if (unk_ && node.id == *unk_) {
        fused.insert(0, text);
      } else {
        if (!fused.empty()) pieces.push_back(std::move(fused));
        fused.clear();
        pieces.push_back(std::move(text));
      }
      end = node.start;
    }
    if (!fused.empty()) pieces.push_back(std::move(fused));
    return {pieces.rbegin(), pieces.rend()};
  }

  std::vector<std::pair<std::string, double>> vocab_;
  std::unordered_map<std::string, int> ids_;
  PieceTrie trie_;
  std::optional<int> unk_;
  bool byteFallback_;
  double minScore_ = std::numeric_limits<double>::infinity();
};

class WordLevelModel final : public HfModel {
 public:
  WordLevelModel(std::unordered_map<std::string, int> vocab, std::string unk)
      : vocab_(std::move(vocab)), unk_(std::move(unk)) {
    for (const auto& [tok, id] : vocab_) {
      auto [it, fresh] = reverse_.emplace(id, tok);
      if (!fresh && tok < it->second) it->second = tok;
      limit_ = std::max(limit_, id + 1);
    }
  }
  bool isWordPiece() const override { return false; }
  std::optional<int> tokenToId(const std::string& token) const override {
    const auto it = vocab_.find(token);
    return it == vocab_.end() ? std::nullopt : std::optional<int>(it->second);
  }
  std::string idToToken(int id) const override {
    const auto it = reverse_.find(id);
    return it == reverse_.end() ? std::string() : it->second;
  }
  int idLimit() const override { return limit_; }
  void tokenize(const std::string& word, std::vector<ModelToken>& out) const override {
    if (const auto id = tokenToId(word)) return out.push_back({*id, word, 0, word.size()});
    if (const auto id = tokenToId(unk_)) return out.push_back({*id, unk_, 0, word.size()});
    throw std::runtime_error("the WordLevel vocabulary has no unknown token " + quoteForMessage(unk_, 40));
  }

 private:
  std::unordered_map<std::string, int> vocab_;
  std::unordered_map<int, std::string> reverse_;
  std::string unk_;
  int limit_ = 0;
};

}  // namespace

Result<std::unique_ptr<HfModel>> parseUnigram(const nlohmann::json& j, const std::string& source) {
  const auto v = j.find("vocab");
  if (v == j.end() || !v->is_array() || v->empty())
    return Error{source + ": Unigram model \"vocab\" is not a non-empty list of [piece, score]"};
  if (v->size() > static_cast<size_t>(hfjson::kMaxTokenId))
    return Error{source + ": Unigram model has more pieces than ids"};
  std::vector<std::pair<std::string, double>> vocab;
  vocab.reserve(v->size());
  for (size_t i = 0; i < v->size(); ++i) {
    const auto& e = (*v)[i];
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number() ||
        !std::isfinite(e[1].get<double>()))
      return Error{fmt::format("{}: Unigram piece {} is not [string, finite score]", source, i)};
    std::string piece = e[0].get<std::string>();
    if (!isValidUtf8(piece)) return Error{fmt::format("{}: Unigram piece {} is not UTF-8", source, i)};
    vocab.emplace_back(std::move(piece), e[1].get<double>());
  }
  std::optional<int> unk;
  if (const auto u = j.find("unk_id"); u != j.end() && !u->is_null()) {
    if (!u->is_number_unsigned() || u->get<uint64_t>() >= vocab.size())
      return Error{
          fmt::format("{}: Unigram unk_id is not an index into its {} pieces", source, vocab.size())};
    unk = static_cast<int>(u->get<uint64_t>());
  }
  return std::unique_ptr<HfModel>(
      new UnigramModel(std::move(vocab), unk, hfjson::boolean(j, "byte_fallback", false)));
}

Result<std::unique_ptr<HfModel>> parseWordLevel(const nlohmann::json& j, const std::string& source) {
  const auto v = j.find("vocab");
  if (v == j.end() || !v->is_object() || v->empty())
    return Error{source + ": WordLevel model \"vocab\" is not a non-empty object of {token: id}"};
  std::unordered_map<std::string, int> vocab;
  for (const auto& [tok, id] : v->items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > hfjson::kMaxTokenId)
      return Error{fmt::format("{}: vocabulary token {} has no valid id", source, quoteForMessage(tok))};
    if (!isValidUtf8(tok)) return Error{source + ": a vocabulary token is not UTF-8"};
    vocab[tok] = static_cast<int>(id.get<int64_t>());
  }
  return std::unique_ptr<HfModel>(new WordLevelModel(std::move(vocab), hfjson::str(j, "unk_token", "<unk>")));
}

}  // namespace attn::models
