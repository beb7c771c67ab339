#include "attn/tokenizers/hf/hf_models.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <queue>

#include "attn/io/quote.h"
#include "attn/io/utf8.h"
#include "attn/tokenizers/hf/hf_json.h"

namespace attn::models {
namespace {

constexpr int64_t kMaxId = hfjson::kMaxTokenId;

size_t utf8Len(unsigned char b) { return b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : 4; }

class VocabModel : public HfModel {
 public:
  explicit VocabModel(std::unordered_map<std::string, int> vocab) : vocab_(std::move(vocab)) {
    for (const auto& [tok, id] : vocab_) {
      // Two tokens on one id (a malformed file): keep one deterministically, never "".
      auto [it, fresh] = reverse_.emplace(id, tok);
      if (!fresh && !tok.empty() && (it->second.empty() || tok < it->second)) it->second = tok;
      limit_ = std::max(limit_, id + 1);
    }
  }
  std::optional<int> tokenToId(const std::string& token) const override {
    const auto it = vocab_.find(token);
    if (it == vocab_.end()) return std::nullopt;
    return it->second;
  }
  std::string idToToken(int id) const override {
    const auto it = reverse_.find(id);
    return it == reverse_.end() ? std::string() : it->second;
  }
  int idLimit() const override { return limit_; }

 protected:
  VocabModel() = default;
  std::unordered_map<std::string, int> vocab_;
  std::unordered_map<int, std::string> reverse_;
  int limit_ = 0;
};

class WordPieceModel final : public VocabModel {
 public:
  WordPieceModel(std::unordered_map<std::string, int> vocab, std::string unk, std::string prefix, size_t maxChars)
      : VocabModel(std::move(vocab)), unk_(std::move(unk)), prefix_(std::move(prefix)), maxChars_(maxChars) {
    unkId_ = vocab_.at(unk_);
    for (const auto& [token, id] : vocab_) {
      size_t n = 0;  // code points: UTF-8 bytes that are not continuation bytes
      for (const char c : token) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
      longestToken_ = std::max(longestToken_, n);
    }
  }
  bool isWordPiece() const override { return true; }

  void tokenize(const std::string& word, std::vector<ModelToken>& out) const override {
    const std::u32string chars = utf8ToUtf32(word).value_or(std::u32string());
    if (chars.size() > maxChars_) {
      out.push_back({unkId_, unk_, 0, word.size()});
      return;
    }
    std::vector<ModelToken> pieces;
    size_t start = 0, startByte = 0;
    while (start < chars.size()) {
      // No vocabulary entry is longer than longestToken_ code points, so the greedy
      // longest match starts there: the same pieces as the library's loop from the
      // word's end, in O(word * longest token) instead of O(word^2) (a 1 MB word
      // under a huge max_input_chars_per_word took minutes).
      size_t end = std::min(chars.size(), start + longestToken_);
      bool found = false;
      for (; end > start; --end) {
        std::string piece = utf32ToUtf8(std::u32string_view(chars).substr(start, end - start));
        if (start > 0) piece = prefix_ + piece;
        const auto it = vocab_.find(piece);
        if (it != vocab_.end()) {
          const size_t endByte =
              startByte + utf32ToUtf8(std::u32string_view(chars).substr(start, end - start)).size();
          pieces.push_back({it->second, std::move(piece), startByte, endByte});
          startByte = endByte;
          found = true;
          break;
        }
      }
      if (!found) {
        out.push_back({unkId_, unk_, 0, word.size()});
        return;
      }
      start = end;
    }
    for (auto& p : pieces) out.push_back(std::move(p));
  }

 private:
  std::string unk_, prefix_;
  size_t maxChars_;
  size_t longestToken_ = 0;
  int unkId_ = 0;
};

class BpeModel final : public VocabModel {
 public:
  BpeModel(std::unordered_map<std::string, int> vocab, BpeOptions o) : VocabModel(std::move(vocab)), o_(std::move(o)) {
    if (o_.unk) unkId_ = vocab_.at(*o_.unk);
  }
  /// tokens[i] has id i (checked by makeBpeInIdOrder: UTF-8, the unknown token present).
  BpeModel(const std::vector<std::string_view>& tokens, BpeOptions o) : o_(std::move(o)) {
    vocab_.reserve(tokens.size());
    reverse_.reserve(tokens.size());
    for (size_t i = 0; i < tokens.size(); ++i) {
      const int id = static_cast<int>(i);
      vocab_.insert_or_assign(std::string(tokens[i]), id);
      reverse_.emplace(id, std::string(tokens[i]));
    }
    limit_ = static_cast<int>(tokens.size());
    if (o_.unk) unkId_ = vocab_.at(*o_.unk);
  }
  bool isWordPiece() const override { return false; }
  bool byteFallback() const override { return o_.byteFallback; }

  static uint64_t key(int a, int b) { return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b); }
  void reserveMerges(size_t n) { merges_.reserve(n); }
  /// Merge `rank` of a and b into their join (b without the continuing-subword prefix); false
  /// when a part or the join is not in the vocabulary. A pair merged twice keeps its first rank.
  bool addMerge(const std::string& a, const std::string& b, int rank) {
    const auto ia = vocab_.find(a), ib = vocab_.find(b);
    if (ia == vocab_.end() || ib == vocab_.end()) return false;
    const std::string& prefix = o_.continuingSubwordPrefix;
    const auto ij =
        vocab_.find(!prefix.empty() && b.starts_with(prefix) ? a + b.substr(prefix.size()) : a + b);
    if (ij == vocab_.end()) return false;
    addMergeIds(ia->second, ib->second, rank, ij->second);
    return true;
  }
  void addMergeIds(int a, int b, int rank, int result) {
    merges_.emplace(key(a, b), std::make_pair(rank, result));
  }

  void tokenize(const std::string& word, std::vector<ModelToken>& out) const override {
    if (word.empty()) return;
    if (o_.ignoreMerges) {
      const auto it = vocab_.find(word);
      if (it != vocab_.end()) {
        out.push_back({it->second, word, 0, word.size()});
        return;
      }
    }
    // The library's BPE::merge_word: one symbol per character, byte fallback or
    // (fused) unknown for characters outside the vocabulary.
    std::vector<int> ids;
    std::vector<size_t> lens;  // bytes per symbol (Word::add's byte_len), for the offsets
    std::optional<int> pendingUnk;
    size_t pendingLen = 0;
    auto flushUnk = [&] {
      if (pendingUnk) {
        ids.push_back(*pendingUnk);
        lens.push_back(pendingLen);
      }
      pendingUnk.reset();
    };
    for (size_t i = 0; i < word.size();) {
      const size_t len = std::min(utf8Len(static_cast<unsigned char>(word[i])), word.size() - i);
      const bool first = i == 0, last = i + len >= word.size();
      std::string s = word.substr(i, len);
      if (!first) s = o_.continuingSubwordPrefix + s;
      if (last) s += o_.endOfWordSuffix;
      i += len;
      if (const auto it = vocab_.find(s); it != vocab_.end()) {
        flushUnk();
        ids.push_back(it->second);
        lens.push_back(len);
        continue;
      }
      if (o_.byteFallback) {
        std::vector<int> bytes;
        for (unsigned char b : s) {
          const auto bt = vocab_.find(fmt::format("<0x{:02X}>", b));
          if (bt == vocab_.end()) break;
          bytes.push_back(bt->second);
        }
        if (bytes.size() == s.size()) {  // the library does not flush a pending unknown here
          ids.insert(ids.end(), bytes.begin(), bytes.end());
          lens.insert(lens.end(), bytes.size(), 1);  // one byte each, as Word::add(id, 1)
          continue;
        }
      }
      if (o_.unk) {
        if (pendingUnk && o_.fuseUnk) {
          pendingLen += len;
          continue;
        }
        flushUnk();
        pendingUnk = unkId_;
        pendingLen = len;
      }
    }
    flushUnk();
    mergeAll(ids, lens);
    size_t at = 0;
    for (size_t k = 0; k < ids.size(); ++k) {
      out.push_back({ids[k], reverse_.at(ids[k]), at, at + lens[k]});
      at += lens[k];
    }
  }

 private:
  // Word::merge_all: a min-heap on (rank, position); stale entries are skipped.
  void mergeAll(std::vector<int>& ids, std::vector<size_t>& lens) const {
    const int n = static_cast<int>(ids.size());
    if (n < 2) return;
    struct Sym {
      int id, prev, next;
      bool alive;
    };
    std::vector<Sym> syms(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) syms[static_cast<size_t>(i)] = {ids[static_cast<size_t>(i)], i - 1, i + 1 < n ? i + 1 : -1, true};
    struct Entry {
      int rank, pos, result;
      bool operator>(const Entry& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
    };
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
    auto consider = [&](int pos) {
      const Sym& s = syms[static_cast<size_t>(pos)];
      if (s.next < 0) return;
      const auto it = merges_.find(key(s.id, syms[static_cast<size_t>(s.next)].id));
      if (it != merges_.end()) queue.push({it->second.first, pos, it->second.second});
    };
    for (int i = 0; i + 1 < n; ++i) consider(i);
    while (!queue.empty()) {
      const Entry top = queue.top();
      queue.pop();
      Sym& cur = syms[static_cast<size_t>(top.pos)];
      if (!cur.alive || cur.next < 0) continue;
      Sym& right = syms[static_cast<size_t>(cur.next)];
      const auto it = merges_.find(key(cur.id, right.id));
      if (it == merges_.end() || it->second.second != top.result) continue;
      cur.id = top.result;
      lens[static_cast<size_t>(top.pos)] += lens[static_cast<size_t>(cur.next)];
      right.alive = false;
      cur.next = right.next;
      if (right.next >= 0) syms[static_cast<size_t>(right.next)].prev = top.pos;
      if (cur.prev >= 0) consider(cur.prev);
      consider(top.pos);
    }
    ids.clear();
    std::vector<size_t> kept;
    for (size_t i = 0; i < syms.size(); ++i)
      if (syms[i].alive) {
        ids.push_back(syms[i].id);
        kept.push_back(lens[i]);
      }
    lens = std::move(kept);
  }

  BpeOptions o_;
  int unkId_ = 0;
  std::unordered_map<uint64_t, std::pair<int, int>> merges_;
};

/// Token -> id over the caller's strings (a file's mapping) by open addressing: 10^5 merges
/// resolved without a std::string per lookup nor a list node per token. A token listed twice
/// gives its last id, as the model's vocabulary does.
class TokenIndex {
 public:
  explicit TokenIndex(const std::vector<std::string_view>& tokens) : tokens_(tokens) {
    size_t capacity = 16;
    while (capacity < 2 * tokens.size()) capacity *= 2;
    slots_.assign(capacity, -1);
    mask_ = capacity - 1;
    for (size_t i = 0; i < tokens.size(); ++i) slots_[slot(tokens[i])] = static_cast<int>(i);
  }
  /// -1 when absent.
  int find(std::string_view token) const { return slots_[slot(token)]; }

 private:
  size_t slot(std::string_view token) const {
    for (size_t s = std::hash<std::string_view>{}(token)&mask_;; s = (s + 1) & mask_)
      if (slots_[s] < 0 || tokens_[static_cast<size_t>(slots_[s])] == token) return s;
  }
  const std::vector<std::string_view>& tokens_;
  std::vector<int> slots_;
  size_t mask_ = 0;
};

Result<std::unordered_map<std::string, int>> parseVocab(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) return Error{source + ": model \"vocab\" is not an object of {token: id}"};
  std::unordered_map<std::string, int> vocab;
  vocab.reserve(j.size());
  for (const auto& [tok, id] : j.items()) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > kMaxId)
      return Error{fmt::format("{}: vocabulary token {} has no valid id", source, quoteForMessage(tok))};
    if (!isValidUtf8(tok)) return Error{source + ": a vocabulary token is not UTF-8"};
    vocab[tok] = static_cast<int>(id.get<int64_t>());
  }
  if (vocab.empty()) return Error{source + ": the model vocabulary is empty"};
  return vocab;
}

}  // namespace

Result<std::unique_ptr<HfModel>> makeWordPiece(std::unordered_map<std::string, int> vocab, std::string unk,
                                               std::string prefix, size_t maxChars, const std::string& source) {
  if (vocab.empty()) return Error{source + ": the vocabulary is empty"};
  if (!vocab.count(unk))
    return Error{fmt::format("{}: the vocabulary has no unknown token {}", source, quoteForMessage(unk))};
  return std::unique_ptr<HfModel>(new WordPieceModel(std::move(vocab), std::move(unk), std::move(prefix), maxChars));
}

Result<std::unique_ptr<HfModel>> makeBpe(std::unordered_map<std::string, int> vocab,
                                         const std::vector<std::pair<std::string, std::string>>& merges,
                                         BpeOptions options, const std::string& source) {
  if (vocab.empty()) return Error{source + ": the vocabulary is empty"};
  if (options.unk && !vocab.count(*options.unk))
    return Error{fmt::format("{}: the vocabulary has no unknown token {}", source, quoteForMessage(*options.unk))};
  auto model = std::make_unique<BpeModel>(std::move(vocab), std::move(options));
  model->reserveMerges(merges.size());
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const auto& [a, b] = merges[rank];
    if (!model->addMerge(a, b, static_cast<int>(rank)))
      return Error{fmt::format("{}: merge {} ({} {}) uses a token missing from the vocabulary", source,
                               rank + 1, quoteForMessage(a, 40), quoteForMessage(b, 40))};
  }
  return std::unique_ptr<HfModel>(std::move(model));
}

Result<std::unique_ptr<HfModel>> makeBpeInIdOrder(const std::vector<std::string_view>& tokens,
                                                  const std::vector<std::string_view>& merges,
                                                  BpeOptions options, const std::string& source) {
  if (tokens.empty()) return Error{source + ": the vocabulary is empty"};
  if (tokens.size() > static_cast<size_t>(kMaxId))
    return Error{source + ": the vocabulary has too many tokens"};
  for (size_t i = 0; i < tokens.size(); ++i)
    if (!isValidUtf8(tokens[i])) return Error{fmt::format("{}: token {} is not UTF-8", source, i)};
  if (options.unk && std::find(tokens.begin(), tokens.end(), *options.unk) == tokens.end())
    return Error{
        fmt::format("{}: the vocabulary has no unknown token {}", source, quoteForMessage(*options.unk))};
  const std::string prefix = options.continuingSubwordPrefix;
  auto model = std::make_unique<BpeModel>(tokens, std::move(options));
  model->reserveMerges(merges.size());
  const TokenIndex index(tokens);
  std::string joined;
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const std::string_view m = merges[rank];
    const size_t sp = m.find(' ');
    if (sp == std::string_view::npos || m.find(' ', sp + 1) != std::string_view::npos)
      return Error{fmt::format("{}: merge {} {} is not two tokens separated by one space", source, rank + 1,
                               quoteForMessage(m, 40))};
    const std::string_view a = m.substr(0, sp), b = m.substr(sp + 1);
    joined.assign(a);
    joined.append(!prefix.empty() && b.starts_with(prefix) ? b.substr(prefix.size()) : b);
    const int ia = index.find(a), ib = index.find(b), ij = ia >= 0 && ib >= 0 ? index.find(joined) : -1;
    if (ij < 0)
      return Error{fmt::format("{}: merge {} ({} {}) uses a token missing from the vocabulary", source,
                               rank + 1, quoteForMessage(a, 40), quoteForMessage(b, 40))};
    model->addMergeIds(ia, ib, static_cast<int>(rank), ij);
  }
  return std::unique_ptr<HfModel>(std::move(model));
}

Result<std::unique_ptr<HfModel>> parseModel(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) return Error{source + ": \"model\" is missing or not an object"};
  std::string type = hfjson::str(j, "type");
  if (type.empty()) type = j.contains("merges") ? "BPE" : j.contains("max_input_chars_per_word") ? "WordPiece" : "";
  if (type.empty() && j.contains("vocab") && j["vocab"].is_array()) type = "Unigram";
  if (type == "Unigram") return parseUnigram(j, source);
  if (type == "WordLevel") return parseWordLevel(j, source);
  if (type != "WordPiece" && type != "BPE")
    return Error{
        fmt::format("{}: unsupported model type {} (WordPiece, BPE, Unigram and WordLevel are supported)",
                    source, quoteForMessage(type.empty() ? "(none)" : type))};
  if (type == "WordPiece") {
    auto vocab = parseVocab(j.contains("vocab") ? j["vocab"] : nlohmann::json(), source);
    if (!vocab) return vocab.error();
    size_t maxChars = 100;
    if (j.contains("max_input_chars_per_word") && j["max_input_chars_per_word"].is_number_unsigned())
      maxChars = j["max_input_chars_per_word"].get<size_t>();
    return makeWordPiece(std::move(*vocab), hfjson::str(j, "unk_token", "[UNK]"),
                         hfjson::str(j, "continuing_subword_prefix", "##"), maxChars, source);
  }
  BpeOptions o;
  if (hfjson::hasString(j, "unk_token")) o.unk = j["unk_token"].get<std::string>();
  o.continuingSubwordPrefix = hfjson::str(j, "continuing_subword_prefix");
  o.endOfWordSuffix = hfjson::str(j, "end_of_word_suffix");
  o.fuseUnk = hfjson::boolean(j, "fuse_unk", false);
  o.byteFallback = hfjson::boolean(j, "byte_fallback", false);
  o.ignoreMerges = hfjson::boolean(j, "ignore_merges", false);
  std::vector<std::pair<std::string, std::string>> merges;
  if (j.contains("merges")) {
    const auto& m = j["merges"];
    if (!m.is_array()) return Error{source + ": model \"merges\" is not an array"};
    merges.reserve(m.size());
    for (size_t i = 0; i < m.size(); ++i) {
      const auto& e = m[i];
      if (e.is_string()) {
        const std::string s = e.get<std::string>();
        const size_t sp = s.find(' ');
        if (sp == std::string::npos || s.find(' ', sp + 1) != std::string::npos)
          return Error{fmt::format("{}: merge {} {} is not two tokens separated by one space", source, i + 1,
                                   quoteForMessage(s, 40))};
        merges.emplace_back(s.substr(0, sp), s.substr(sp + 1));
      } else if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string()) {
        merges.emplace_back(e[0].get<std::string>(), e[1].get<std::string>());
      } else {
        return Error{fmt::format("{}: merge {} is neither \"a b\" nor [\"a\", \"b\"]", source, i + 1)};
      }
    }
  }
  auto vocab = parseVocab(j.contains("vocab") ? j["vocab"] : nlohmann::json(), source);
  if (!vocab) return vocab.error();
  return makeBpe(std::move(*vocab), merges, std::move(o), source);
}

}  // namespace attn::models
