#include "attn/models/seq2seq/greedy_search.h"

#include <algorithm>
#include <limits>
#include <map>

namespace attn::models {

std::vector<int> bannedNgramTokens(const std::vector<int>& ids, int n) {
  const size_t len = ids.size();
  if (n <= 0 || len + 1 < static_cast<size_t>(n)) return {};
  const size_t prefix = static_cast<size_t>(n) - 1;
  // _get_ngrams + _get_generated_ngrams: every n-gram's last token, keyed by its first n - 1.
  std::map<std::vector<int>, std::vector<int>> seen;
  for (size_t i = 0; i + static_cast<size_t>(n) <= len; ++i)
    seen[std::vector<int>(ids.begin() + static_cast<std::ptrdiff_t>(i),
                          ids.begin() + static_cast<std::ptrdiff_t>(i + prefix))]
        .push_back(ids[i + prefix]);
  const auto it = seen.find(std::vector<int>(ids.end() - static_cast<std::ptrdiff_t>(prefix), ids.end()));
  return it == seen.end() ? std::vector<int>{} : it->second;
}

void processScores(float* scores, int vocab, const std::vector<int>& ids, const GenerationSettings& g,
                   int maxLength) {
  const int len = static_cast<int>(ids.size());
  const float minusInf = -std::numeric_limits<float>::infinity();
  for (int t : bannedNgramTokens(ids, g.noRepeatNgramSize))
    if (t >= 0 && t < vocab) scores[t] = minusInf;
  for (const auto& words : g.badWordsIds)
    if (words.size() <= ids.size() + 1 &&
        std::equal(words.begin(), words.end() - 1,
                   ids.end() - static_cast<std::ptrdiff_t>(words.size() - 1)) &&
        words.back() < vocab)
      scores[words.back()] = minusInf;
  // ForcedBOS / ForcedEOSTokenLogitsProcessor: every other token -inf, the forced ones 0.
  std::vector<int> forced;
  if (len == 1 && g.forcedBosTokenId >= 0) forced.push_back(g.forcedBosTokenId);
  if (len == maxLength - 1)
    for (int id : g.forcedEosSet()) forced.push_back(id);
  std::erase_if(forced, [vocab](int id) { return id < 0 || id >= vocab; });
  if (forced.empty()) return;
  std::fill(scores, scores + vocab, minusInf);
  for (int id : forced) scores[id] = 0.0f;
}

int forcedGreedyToken(int vocab, const std::vector<int>& ids, const GenerationSettings& g, int maxLength) {
  const int len = static_cast<int>(ids.size());
  // ForcedBOS at length 1 and ForcedEOS at maxLength - 1 leave one token possible.
  if (len == 1 && g.forcedBosTokenId >= 0 && g.forcedBosTokenId < vocab) return g.forcedBosTokenId;
  int smallest = -1;
  if (len == maxLength - 1)  // a list leaves several at 0: torch.argmax takes the smallest id
    for (int id : g.forcedEosSet())
      if (id >= 0 && id < vocab && (smallest < 0 || id < smallest)) smallest = id;
  return smallest;
}

std::vector<int> greedyBannedTokens(const std::vector<int>& ids, const GenerationSettings& g) {
  std::vector<int> banned = bannedNgramTokens(ids, g.noRepeatNgramSize);
  for (const auto& words : g.badWordsIds)  // NoBadWordsLogitsProcessor
    if (words.size() <= ids.size() + 1 &&
        std::equal(words.begin(), words.end() - 1, ids.end() - static_cast<std::ptrdiff_t>(words.size() - 1)))
      banned.push_back(words.back());
  std::sort(banned.begin(), banned.end());
  banned.erase(std::unique(banned.begin(), banned.end()), banned.end());
  return banned;
}

int greedyNextToken(const float* logits, int vocab, const std::vector<int>& ids, const GenerationSettings& g,
                    int maxLength) {
  if (const int forced = forcedGreedyToken(vocab, ids, g, maxLength); forced >= 0) return forced;
  const std::vector<int> banned = greedyBannedTokens(ids, g);
  int best = -1;
  float bestScore = -std::numeric_limits<float>::infinity();
  for (int t = 0; t < vocab; ++t) {
    if (std::binary_search(banned.begin(), banned.end(), t)) continue;
    if (best < 0 || logits[t] > bestScore) best = t, bestScore = logits[t];  // first maximum, as torch.argmax
  }
  return best < 0 ? 0 : best;
}

}  // namespace attn::models
