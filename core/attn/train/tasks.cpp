#include "attn/train/tasks.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <string_view>

namespace attn::train {
namespace {

// The bundled toy languages of Translate: word i of one means word i of the other.
constexpr std::array<std::string_view, 12> kSourceWords{"red", "blue", "green", "cat", "dog", "bird",
                                                        "big", "small", "sun", "moon", "tree", "fish"};
constexpr std::array<std::string_view, 12> kTargetWords{"红", "蓝", "绿", "猫", "狗", "鸟",
                                                        "大", "小", "日", "月", "树", "鱼"};

int uniformInt(SeededRng& rng, int n) { return static_cast<int>(rng.next() % static_cast<uint64_t>(n)); }

// Translate's fixed reordering: adjacent pairs swap (an odd last word stays).
int translateSourceOf(int i, int n) {
  const int j = i ^ 1;
  return j < n ? j : i;
}

std::vector<int> stableArgsort(const std::vector<int>& x) {
  std::vector<int> idx(x.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return x[a] < x[b]; });
  return idx;
}

std::vector<int> bracketMatches(const std::vector<int>& x) {
  std::vector<int> match(x.size(), 0), stack;
  for (int i = 0; i < static_cast<int>(x.size()); ++i) {
    if (x[i] == 0) {
      stack.push_back(i);
    } else if (!stack.empty()) {
      match[i] = stack.back();
      match[stack.back()] = i;
      stack.pop_back();
    } else {
      match[i] = i;  // unbalanced input (not generated): points at itself
    }
  }
  for (int i : stack) match[i] = i;
  return match;
}

std::vector<int> randomBalanced(int n, SeededRng& rng) {
  std::vector<int> x(n);
  int depth = 0, opensLeft = n / 2;
  for (int i = 0; i < n; ++i) {
    const int remaining = n - i;
    bool open;
    if (opensLeft == 0) open = false;
    else if (depth == 0) open = true;
    else if (depth >= remaining) open = false;
    else open = (rng.next() >> 63) != 0;
    x[i] = open ? 0 : 1;
    if (open) { ++depth; --opensLeft; } else { --depth; }
  }
  return x;
}

// Induction (Olsson et al. 2022): random tokens, then a segment of length len
// copied from `from` to `to` (to >= from + len, so the copy does not overlap
// its source). Both the offset (to - from) and len vary per sequence: with one
// fixed offset a model could predict by position alone, without a previous-token
// head. Tokens inside the copy after its first are predictable; the rest ignored.
void sampleInductionRow(const TrainConfig& c, SeededRng& rng, std::vector<int>& x, std::vector<int>& y) {
  const int n = c.seqLen;
  for (int i = 0; i < n; ++i) x[i] = uniformInt(rng, c.vocabSize);
  const int minLen = std::max(2, n / 8), maxLen = n / 2;
  const int len = minLen + uniformInt(rng, maxLen - minLen + 1);
  const int from = uniformInt(rng, n - 2 * len + 1);
  const int to = from + len + uniformInt(rng, n - len - (from + len) + 1);
  for (int k = 0; k < len; ++k) x[to + k] = x[from + k];
  std::fill(y.begin(), y.end(), kIgnoredTarget);
  for (int i = to; i + 1 < to + len; ++i) y[i] = x[i + 1];
}

// The induction head's key for each query: the position after the latest earlier
// occurrence of the query's token, or -1 when it has not occurred.
std::vector<int> inductionKeys(const std::vector<int>& x) {
  const int n = static_cast<int>(x.size());
  std::vector<int> key(n, -1);
  for (int i = 1; i < n; ++i)
    for (int j = i - 1; j >= 0; --j)
      if (x[j] == x[i]) {
        key[i] = j + 1;
        break;
      }
  return key;
}

// The source position each output position reads (rows of the expected pattern).
std::vector<int> sourcePositions(const TrainConfig& c, const std::vector<int>& x) {
  const int n = static_cast<int>(x.size());
  std::vector<int> src(n);
  switch (c.task) {
    case Task::Copy: std::iota(src.begin(), src.end(), 0); break;
    case Task::Reverse: for (int i = 0; i < n; ++i) src[i] = n - 1 - i; break;
    case Task::Sort: src = stableArgsort(x); break;
    case Task::Shift: for (int i = 0; i < n; ++i) src[i] = (i + n - 1) % n; break;
    case Task::Translate: for (int i = 0; i < n; ++i) src[i] = translateSourceOf(i, n); break;
    case Task::Brackets: src = bracketMatches(x); break;
    case Task::Induction:
      src = inductionKeys(x);
      break;
  }
  return src;
}

}  // namespace

int translateVocabularyLimit() { return static_cast<int>(kSourceWords.size()); }

int inputVocabulary(const TrainConfig& c) { return c.task == Task::Brackets ? 2 : c.vocabSize; }
int outputVocabulary(const TrainConfig& c) { return c.task == Task::Brackets ? c.seqLen : c.vocabSize; }
bool isCrossAttention(Task t) { return t == Task::Translate; }
bool isCausal(const TrainConfig& c) {
  return !isCrossAttention(c.task) && (c.causal || c.task == Task::Induction);
}

TaskBatch sampleBatch(const TrainConfig& c, int batch, SeededRng& rng) {
  const int n = c.seqLen;
  TaskBatch b;
  b.inputs.resize(batch, n);
  b.targets.resize(batch, n);
  std::vector<int> x(n), y(n);
  for (int r = 0; r < batch; ++r) {
    if (c.task == Task::Induction) {
      sampleInductionRow(c, rng, x, y);
      for (int i = 0; i < n; ++i) {
        b.inputs(r, i) = x[i];
        b.targets(r, i) = y[i];
      }
      continue;
    }
    if (c.task == Task::Brackets) {
      x = randomBalanced(n, rng);
    } else {
      for (int i = 0; i < n; ++i) x[i] = uniformInt(rng, c.vocabSize);
    }
    const std::vector<int> src = sourcePositions(c, x);
    for (int i = 0; i < n; ++i) {
      b.inputs(r, i) = x[i];
      // Brackets predicts the matching position; every other task a token
      // (Translate: word k of the target language means word k of the source).
      b.targets(r, i) = c.task == Task::Brackets ? src[i] : x[src[i]];
    }
  }
  return b;
}

TaskBatch exampleBatch(const TrainConfig& c, SeededRng& rng) {
  if (c.task != Task::Induction) return sampleBatch(c, 1, rng);
  const int n = c.seqLen, half = n / 2;
  // A seeded shuffle of the vocabulary gives distinct tokens when it is large enough.
  std::vector<int> pool(static_cast<size_t>(c.vocabSize));
  std::iota(pool.begin(), pool.end(), 0);
  for (int i = c.vocabSize - 1; i > 0; --i) std::swap(pool[i], pool[uniformInt(rng, i + 1)]);
  TaskBatch b;
  b.inputs.resize(1, n);
  b.targets.setConstant(1, n, kIgnoredTarget);
  for (int i = 0; i < half; ++i)
    b.inputs(0, i) = half <= c.vocabSize ? pool[i] : uniformInt(rng, c.vocabSize);
  for (int i = half; i < n; ++i) b.inputs(0, i) = b.inputs(0, i - half);
  for (int i = half; i + 1 < n; ++i) b.targets(0, i) = b.inputs(0, i + 1);
  return b;
}

Mat expectedPattern(const TrainConfig& c, const std::vector<int>& source) {
  const int n = static_cast<int>(source.size());
  Mat m = Mat::Zero(n, n);
  const std::vector<int> src = sourcePositions(c, source);
  for (int i = 0; i < n; ++i)
    if (src[i] >= 0) m(i, src[i]) = 1.0f;
  return m;
}

namespace {
std::string symbolLabel(int id) {
  if (id < 10) return std::string(1, static_cast<char>('0' + id));
  if (id < 36) return std::string(1, static_cast<char>('A' + id - 10));
  return std::to_string(id);
}
}  // namespace

std::string inputTokenLabel(const TrainConfig& c, int id) {
  if (c.task == Task::Brackets) return id == 0 ? "(" : ")";
  if (c.task == Task::Translate && id >= 0 && id < translateVocabularyLimit())
    return std::string(kSourceWords[static_cast<size_t>(id)]);
  return symbolLabel(id);
}

std::string outputTokenLabel(const TrainConfig& c, int id) {
  if (id == kIgnoredTarget) return "·";
  if (c.task == Task::Brackets) return std::to_string(id);
  if (c.task == Task::Translate && id >= 0 && id < translateVocabularyLimit())
    return std::string(kTargetWords[static_cast<size_t>(id)]);
  return symbolLabel(id);
}

std::string taskDescription(Task t) {
  switch (t) {
    case Task::Copy:
      return "Copy the input: each output position should attend to the same input position (the diagonal).";
    case Task::Reverse:
      return "Reverse the input: output position i should attend to input position N-1-i (the anti-diagonal).";
    case Task::Sort:
      return "Sort the digits: output position i should attend to the i-th smallest input (the sorting "
             "permutation).";
    case Task::Shift:
      return "Shift by one: output position i should attend to input position i-1 (the sub-diagonal).";
    case Task::Translate:
      return "Translate word by word into a toy language that swaps adjacent words: each target position "
             "attends across to the source word it translates (encoder-decoder cross-attention).";
    case Task::Brackets:
      return "Find the matching bracket: each position should attend to the bracket that closes or opens it.";
    case Task::Induction:
      return "Predict the next token where a segment repeats: layer 1 finds each token's predecessor (a "
             "previous-token head) so that layer 2 can attend to the token after the earlier copy of the "
             "current "
             "one (an induction head).";
  }
  return {};
}

}  // namespace attn::train
