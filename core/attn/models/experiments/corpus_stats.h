#pragma once
// What each head of a model does on average over a corpus (Clark et al. 2019,
// "What Does BERT Look At?", section 3: BERT's heads measured over 1,000
// Wikipedia segments): per layer and head, the sums behind the corpus means of
// the `metrics` measures, and the sentences where a chosen measure is highest.
//
// Weighting: per sentence. Each sentence (a corpus line, or one chunk of a
// line longer than the context) contributes its per-head value exactly as
// `attnscope-cli metrics` reports it for that sentence alone (the mean over its
// rows), and the corpus mean is the plain mean of those values. Long and short
// sentences count alike.
//
// Mergeable: sums are kept in double and added in a fixed order, so merging
// shard accumulators gives the counts of one run exactly and its means within
// rounding (1e-12); the top sentences are ordered by (value desc, line, chunk),
// so merged lists equal one run's exactly.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/models/model.h"
#include "attn/status.h"

namespace attn::models {

enum class CorpusMeasure { Entropy, First, Separator, Previous, Next, Self, Distance, CoverageK };
inline constexpr int kCorpusMeasureCount = 8;

/// "entropy", "first", "separator", "previous", "next", "self", "distance", "coverage_k".
std::string_view corpusMeasureName(CorpusMeasure m);
std::optional<CorpusMeasure> parseCorpusMeasure(std::string_view name);
/// "entropy, first, ..." for messages and help.
std::string corpusMeasureList();

using HeadMeasures = std::array<double, kCorpusMeasureCount>;

/// One sentence's measures, per head in [layer * heads + head] order: mean row
/// entropy (nats), Clark et al.'s shares (first token, separators/punctuation,
/// previous, next, self), mean attention distance and the mean coverage k at
/// `coverageLevel`, all over rows with mass, as analyzeHeads computes them
/// (keys are the run's tokens; no keep mask: non-zero weights are the keys).
struct SentenceMeasures {
  int layers = 0, heads = 0, tokens = 0;
  std::vector<HeadMeasures> values;
};
SentenceMeasures measureSentence(const ModelRun& run, double coverageLevel = 0.9);

/// Runs each sentence through `model` (no q/k/v, logits or predictions kept) and measures it,
/// several sentences at once: one sentence per thread with a single-threaded forward, since at
/// ~32 tokens a forward's GEMMs are too small to split across cores well and their weight
/// packing dominates. A sentence's result does not depend on the others in the batch. In input
/// order; `error` is set (and `measures` empty) where the model refused the sentence.
/// The options of a corpus sentence's forward: maps and entropies only (no q/k/v, per-head
/// logits or predictions).
RunOptions corpusRunOptions();
struct MeasuredSentence {
  SentenceMeasures measures;
  std::string error;
};
std::vector<MeasuredSentence> measureSentences(const Model& model, const std::vector<Encoding>& sentences,
                                               double coverageLevel = 0.9);

struct TopSentence {
  double value = 0;
  int64_t line = 0;  // 1-based line of the corpus file
  int chunk = 0;     // 0-based chunk of a split line (0 for whole lines)
  int tokens = 0;
  std::string text;
};

/// What two accumulators must share to be merged.
struct CorpusConfig {
  std::string model;  // ModelInfo::name
  int layers = 0, heads = 0;
  CorpusMeasure measure = CorpusMeasure::Entropy;  // ranks the top sentences
  int topK = 5;
  int maxTokens = 0;  // tokens per chunk
  double coverageLevel = 0.9;
};

struct CorpusCounts {
  int64_t lines = 0;         // non-empty lines taken
  int64_t sentences = 0;     // chunks run through the model (a split line gives several)
  int64_t tokens = 0;        // tokens over all sentences, special tokens included
  int64_t splitLines = 0;    // lines longer than maxTokens, split into chunks
  int64_t skippedLines = 0;  // lines the model could not take (e.g. not UTF-8)
};

class CorpusStats {
 public:
  explicit CorpusStats(CorpusConfig config = {});

  const CorpusConfig& config() const { return config_; }
  const CorpusCounts& counts() const { return counts_; }
  CorpusCounts& counts() { return counts_; }

  /// Adds one sentence (counts.sentences and .tokens; lines are the caller's to count).
  /// Errors when its layers x heads differ from the config.
  Status add(const SentenceMeasures& s, int64_t line, int chunk, std::string_view text);
  /// Adds `other` (same model, layers, heads, measure, topK, maxTokens, coverage level).
  Status merge(const CorpusStats& other);

  /// Sum over sentences of one head's measure; the mean divides by counts().sentences.
  double sum(int layer, int head, CorpusMeasure m) const;
  double mean(int layer, int head, CorpusMeasure m) const;
  /// The head's top sentences by config().measure, highest first (ties: earlier line, chunk).
  const std::vector<TopSentence>& top(int layer, int head) const;

  /// One JSON object on one line (no newline): config, counts, sums (exact doubles),
  /// means per measure [layers][heads], top sentences per head.
  std::string toJsonLine() const;
  /// Reads toJsonLine's object (other fields are ignored); `source` names the file in errors.
  static Result<CorpusStats> fromJsonLine(std::string_view line, const std::string& source);

 private:
  void offer(size_t head, TopSentence t);
  CorpusConfig config_;
  CorpusCounts counts_;
  std::vector<HeadMeasures> sums_;              // [layers * heads]
  std::vector<std::vector<TopSentence>> top_;   // [layers * heads], sorted
};

/// Appends tokens [begin, end) of `from` to `to`, every per-token field alike (a field `from`
/// does not hold for all of them is left out).
void appendTokens(const Encoding& from, size_t begin, size_t end, Encoding& to);

/// Splits an encoding longer than `maxTokens` into chunks of at most that many tokens, each
/// keeping the leading and trailing special tokens (BERT's [CLS] ... [SEP]) around its slice of
/// the rest, as the tokenizers library's overflowing tokens do. Shorter encodings come back whole.
/// Errors when `maxTokens` leaves no room beside the special tokens.
Result<std::vector<Encoding>> splitEncoding(const Encoding& e, int maxTokens);

/// The order of top sentences: higher value first, then earlier line, then earlier chunk.
bool rankedBefore(const TopSentence& a, const TopSentence& b);

}  // namespace attn::models
