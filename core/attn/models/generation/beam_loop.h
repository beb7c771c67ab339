#pragma once
// Beam search as transformers' generate runs it with BeamSearchScorer (one sentence, one
// sequence returned), for any decoder: each beam's next-token log-probabilities through the
// logits processors plus the beam's running score; the 2 x beams best (beam, token) pairs
// in order; an EOS among the first `beams` closes a hypothesis, scored sum log p /
// generated_length^length_penalty (the tokens after the prompt, EOS included: cur_len + 1 -
// decoder_prompt_len), the rest continue as the new beams. It stops when `beams` hypotheses
// are closed and either early_stopping is set or none of the open beams could still beat the
// worst of them, or at max_length, when the open beams join the hypotheses (their length
// less the prompt). The hypotheses are returned best first, EOS appended when shorter than
// max_length (num_return_sequences takes the first k). An encoder-decoder's prompt is its
// decoder start token; a causal model's is the text.
// With sampling on (GenerationSettings::sampling) it is beam sampling as generate runs it with
// do_sample and num_beams > 1: each beam's row also goes through the warpers (temperature,
// top-k, top-p; token_sampler.h) before its running score is added, and the candidates are
// drawn without replacement from the softmax over all beams' rows instead of taken best
// first, then ordered by score; the running scores sum the warped scores.
#include <string>
#include <vector>

#include "attn/models/model.h"
#include "attn/models/seq2seq/seq2seq_config.h"

namespace attn::models {

/// A closed hypothesis: sum log p / generated_length^length_penalty and its ids.
struct BeamHypothesis {
  double score = 0;
  std::vector<int> ids;
};

struct BeamSettings {
  int beams = 4;
  double lengthPenalty = 1.0;
  bool earlyStopping = false;
};

/// The closed hypotheses of BeamSearchScorer (transformers' BeamHypotheses): the `beams` best
/// by score, the worst of them remembered.
class BeamHypotheses {
 public:
  BeamHypotheses(int beams, double lengthPenalty, bool earlyStopping)
      : beams_(beams), lengthPenalty_(lengthPenalty), earlyStopping_(earlyStopping) {}
  /// `generated`: the tokens after the prompt, EOS included.
  void add(const std::vector<int>& ids, double sumLogprobs, int generated);
  /// Whether no open beam whose best total is `bestSum` could enter any more.
  bool isDone(double bestSum, int generated) const;
  /// The best hypothesis (the last added among equal scores, as sorted(...).pop()).
  const std::vector<int>& best() const;
  /// Every kept hypothesis, best first, as generate's num_return_sequences takes them (sorted by
  /// score, popped from the end: the last added first among equal scores).
  std::vector<BeamHypothesis> ranked() const;
  size_t size() const { return kept_.size(); }

 private:
  int beams_;
  double lengthPenalty_;
  bool earlyStopping_;
  double worst_ = 1e9;
  std::vector<std::pair<double, std::vector<int>>> kept_;
};

/// What beam search drives: one decoder state per beam.
class BeamStepper {
 public:
  virtual ~BeamStepper() = default;
  /// Feeds `token` to beam `beam`'s state; logits [vocab] of the row it gives.
  virtual Status feed(int beam, int token, std::vector<float>& logits) = 0;
  /// The new beam i continues the state of old beam parents[i] (the fed token not yet in it).
  virtual void reorder(const std::vector<int>& parents) = 0;
};

/// Beam search from `prompt` (its last token not yet fed to any beam's state, the states all
/// alike) up to maxLength tokens, the prompt included: the kept hypotheses best first (the
/// first is what generate returns). `src` names errors; cancellable.
Result<std::vector<BeamHypothesis>> runBeamSearch(BeamStepper& stepper, const std::vector<int>& prompt,
                                                  int vocab, const GenerationSettings& g,
                                                  const BeamSettings& b, int maxLength,
                                                  const std::string& src, const ProgressFn& progress = {});

/// The search in words: "greedy", "sampling (top_k 50, ...)", "beam search (4 beams, ...)" or
/// "beam sampling (4 beams, ..., top_k 50, ...)".
std::string describeSearch(const GenerationSettings& g, int beams, const BeamSettings& b);

/// torch.log_softmax over one row in float: x - max - log(sum(exp(x - max))).
void logSoftmaxRow(const float* x, int n, float* out);

}  // namespace attn::models
