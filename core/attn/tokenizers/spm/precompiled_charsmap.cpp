#include "attn/tokenizers/spm/precompiled_charsmap.h"

#include <fmt/format.h>

#include <cstring>
#include <deque>
#include <utility>

namespace attn::models {
namespace {

// darts-clone's DoubleArrayUnit (third_party/darts_clone/darts.h in sentencepiece).
bool dartsHasLeaf(uint32_t u) { return ((u >> 8) & 1) != 0; }
uint32_t dartsValue(uint32_t u) { return u & 0x7FFFFFFFu; }
uint32_t dartsLabel(uint32_t u) { return u & (0x80000000u | 0xFFu); }
uint32_t dartsOffset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

struct TrieNode {
  uint32_t base;  // the unit index a child's label byte is XORed into
  int results;    // leaves on the path from the root, this node included
};

}  // namespace

Result<PrecompiledCharsmap> PrecompiledCharsmap::parse(std::string_view blob, const std::string& source) {
  auto fault = [&](const std::string& what) {
    return Error{fmt::format("{}: precompiled charsmap: {}", source, what)};
  };
  if (blob.size() <= 4) return fault("shorter than its 4-byte header");
  const uint32_t trieBytes = static_cast<uint32_t>(static_cast<unsigned char>(blob[0])) |
                             static_cast<uint32_t>(static_cast<unsigned char>(blob[1])) << 8 |
                             static_cast<uint32_t>(static_cast<unsigned char>(blob[2])) << 16 |
                             static_cast<uint32_t>(static_cast<unsigned char>(blob[3])) << 24;
  if (trieBytes > blob.size() - 4)
    return fault(fmt::format("the trie claims {} bytes, the blob holds {}", trieBytes, blob.size() - 4));
  PrecompiledCharsmap map;
  map.units_.resize(trieBytes / 4);
  if (!map.units_.empty()) std::memcpy(map.units_.data(), blob.data() + 4, map.units_.size() * 4);
  map.normalized_.assign(blob.substr(4 + trieBytes));
  const size_t n = map.units_.size();
  // Every lookup from a node reads the 256 units of the block its base is in.
  auto blockInside = [n](uint32_t base) { return (static_cast<size_t>(base) | 0xFFu) < n; };
  if (n == 0 || !blockInside(dartsOffset(map.units_[0]))) return fault("the trie's root lies outside it");
  const size_t lastNul = map.normalized_.rfind('\0');
  // darts-clone builds the array from a DAWG, so units are shared between
  // prefixes: a unit is walked again only when reached with more results than
  // before (the most results of any lookup through it, bounded by kMaxResults),
  // and the whole walk by a budget that hostile sharing cannot stretch.
  std::vector<int8_t> most(n, -1);
  size_t budget = 4 * n + 4096;
  std::deque<TrieNode> queue{{dartsOffset(map.units_[0]), 0}};
  while (!queue.empty()) {
    if (budget-- == 0) return fault("the trie shares its nodes too often to be checked");
    const TrieNode node = queue.front();
    queue.pop_front();
    for (uint32_t c = 0; c < 256; ++c) {
      const uint32_t at = node.base ^ c;
      const uint32_t unit = map.units_[at];
      if (dartsLabel(unit) != c) continue;
      const uint32_t base = at ^ dartsOffset(unit);
      if (!blockInside(base)) return fault(fmt::format("unit {} points outside the trie", at));
      const int results = node.results + (dartsHasLeaf(unit) ? 1 : 0);
      if (results > kMaxResults) return fault(fmt::format("a rule has more than {} prefixes", kMaxResults));
      if (results <= most[at]) continue;
      most[at] = static_cast<int8_t>(results);
      if (dartsHasLeaf(unit)) {
        const uint32_t v = dartsValue(map.units_[base]);
        if (lastNul == std::string::npos || v > lastNul)
          return fault(fmt::format("replacement {} lies outside the NUL-terminated strings", v));
      }
      queue.push_back({base, results});
    }
  }
  return map;
}

std::pair<std::string_view, size_t> PrecompiledCharsmap::longestPrefix(std::string_view text) const {
  // DoubleArray::commonPrefixSearch, keeping the longest match; parse() made every read safe.
  if (units_.empty()) return {{}, 0};
  uint32_t base = dartsOffset(units_[0]);
  size_t bestLength = 0;
  uint32_t bestValue = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const uint32_t at = base ^ c;
    const uint32_t unit = units_[at];
    if (dartsLabel(unit) != c) break;
    base = at ^ dartsOffset(unit);
    if (dartsHasLeaf(unit)) {
      bestLength = i + 1;
      bestValue = dartsValue(units_[base]);
    }
  }
  if (bestLength == 0) return {{}, 0};
  const size_t end = normalized_.find('\0', bestValue);
  return {std::string_view(normalized_).substr(bestValue, end - bestValue), bestLength};
}

std::optional<std::string_view> PrecompiledCharsmap::shortestPrefix(std::string_view text) const {
  if (units_.empty()) return std::nullopt;
  uint32_t base = dartsOffset(units_[0]);
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == 0) break;
    const uint32_t at = base ^ c;
    const uint32_t unit = units_[at];
    if (dartsLabel(unit) != c) break;
    base = at ^ dartsOffset(unit);
    if (dartsHasLeaf(unit)) {
      const uint32_t v = dartsValue(units_[base]);
      return std::string_view(normalized_).substr(v, normalized_.find('\0', v) - v);
    }
  }
  return std::nullopt;
}

}  // namespace attn::models
