#include "attn/models/experiments/head_types_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <set>

namespace attn::models {
namespace {

// SplitMix64 (Steele et al. 2014): the same sequence from a seed on every
// platform, unlike std::uniform_int_distribution.
uint64_t headTypesSplitMix(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

bool looksSpecialToken(const std::string& t) {
  if (t.empty()) return true;
  if (t.size() >= 3 && t.front() == '<' && t.back() == '>') return true;
  return t.size() >= 3 && t.front() == '[' && t.back() == ']';
}

struct SequenceFrame {
  std::vector<int> prefix, suffix;
  std::set<int> templateIds;
  int endOfText = -1;
};

Result<SequenceFrame> headTypesFrame(const Model& model) {
  SequenceFrame f;
  auto probe = model.encode("a", std::nullopt, "head types");
  if (!probe) return probe.error();
  const auto& e = *probe;
  size_t first = 0;
  while (first < e.special.size() && e.special[first]) f.prefix.push_back(e.ids[first++]);
  size_t last = e.special.size();
  while (last > first && e.special[last - 1]) --last;
  for (size_t i = last; i < e.special.size(); ++i) f.suffix.push_back(e.ids[i]);
  for (size_t i = 0; i < e.ids.size(); ++i)
    if (i < e.special.size() && e.special[i]) f.templateIds.insert(e.ids[i]);
  return f;
}

}  // namespace

Result<RepeatedSequence> repeatedRandomSequence(const Model& model, int length, uint64_t seed) {
  const ModelInfo& info = model.info();
  auto frame = headTypesFrame(model);
  if (!frame) return frame.error();
  const HfTokenizer& tok = model.tokenizer();
  const int limit = std::min(tok.idLimit(), info.vocabSize);
  std::vector<int> candidates;
  const int mask = tok.maskTokenId();
  for (int id = 0; id < limit; ++id) {
    const std::string t = tok.idToToken(id);
    if (t == "<|endoftext|>") frame->endOfText = id;
    if (id == mask || frame->templateIds.count(id) || looksSpecialToken(t)) continue;
    candidates.push_back(id);
  }
  if (frame->prefix.empty() && frame->endOfText >= 0) frame->prefix.push_back(frame->endOfText);
  const int extra = static_cast<int>(frame->prefix.size() + frame->suffix.size());
  const int room = info.maxPositions > 0 ? (info.maxPositions - extra) / 2 : kDefaultRepeatLength;
  if (length == 0) length = std::min(kDefaultRepeatLength, room);
  if (length < 2)
    return Error{
        fmt::format("{}: the repeated sequence needs at least 2 tokens per copy (got {})", info.dir, length)};
  if (info.maxPositions > 0 && length > room)
    return Error{
        fmt::format("{}: 2 x {} tokens (+{} special) exceed the model's {} positions; at most {} per copy",
                    info.dir, length, extra, info.maxPositions, room)};
  if (static_cast<int>(candidates.size()) < length)
    return Error{fmt::format("{}: the vocabulary has {} ordinary tokens, fewer than the {} asked for",
                             info.dir, candidates.size(), length)};
  // n distinct tokens (a partial Fisher-Yates shuffle): a repeat inside one copy
  // would put a second "previous occurrence" in the map.
  uint64_t state = seed;
  for (int i = 0; i < length; ++i) {
    const auto span = static_cast<uint64_t>(candidates.size() - static_cast<size_t>(i));
    std::swap(candidates[static_cast<size_t>(i)],
              candidates[static_cast<size_t>(i) + static_cast<size_t>(headTypesSplitMix(state) % span)]);
  }
  RepeatedSequence r;
  r.period = length;
  auto& ids = r.encoding.ids;
  ids = frame->prefix;
  for (int copy = 0; copy < 2; ++copy) ids.insert(ids.end(), candidates.begin(), candidates.begin() + length);
  ids.insert(ids.end(), frame->suffix.begin(), frame->suffix.end());
  const int pre = static_cast<int>(frame->prefix.size());
  r.secondCopy = {pre + length, pre + 2 * length};
  for (size_t i = 0; i < ids.size(); ++i) {
    r.encoding.tokens.push_back(tok.idToToken(ids[i]));
    const bool special = static_cast<int>(i) < pre || static_cast<int>(i) >= r.secondCopy.end;
    r.encoding.special.push_back(special ? 1 : 0);
  }
  r.encoding.typeIds.assign(ids.size(), 0);
  r.encoding.attention.assign(ids.size(), 1);
  return r;
}

Result<ModelHeadTypes> modelHeadTypes(const Model& model, const HeadTypeRunOptions& options,
                                      const ProgressFn& progress) {
  auto seq = repeatedRandomSequence(model, options.length, options.seed);
  if (!seq) return seq.error();
  RunOptions run;
  run.keepQkv = false;
  run.topK = 0;
  run.maskTopK = 0;
  auto result = model.run(seq->encoding, run, progress);
  if (!result) return result.error();
  ModelHeadTypes out;
  out.sequence = std::move(*seq);
  out.seed = options.seed;
  out.thresholds = options.thresholds;
  for (const AttentionResult& layer : result->layers) {
    auto& scores = out.scores.emplace_back();
    auto& types = out.types.emplace_back();
    for (const HeadResult& head : layer.heads) {
      scores.push_back(headTypeScores(head.weights, out.sequence.period, out.sequence.secondCopy));
      types.push_back(classifyHead(scores.back(), out.thresholds));
    }
  }
  return out;
}

}  // namespace attn::models
