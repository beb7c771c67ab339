#include "attn/models/seq2seq/beam_search.h"

namespace attn::models {
namespace {

/// One decoder state per beam, each with the cross-attention keys and values.
class Seq2SeqBeams : public BeamStepper {
 public:
  Seq2SeqBeams(const Seq2SeqConfig& c, const Seq2SeqWeights& w, const Seq2SeqState& start, int beams,
               const std::string& src)
      : c_(c), w_(w), src_(src), states_(static_cast<size_t>(beams), start) {}
  Status feed(int beam, int token, std::vector<float>& logits) override {
    if (auto st = decodeRows(c_, w_, {token}, true, src_, states_[static_cast<size_t>(beam)], rows_); !st)
      return st;
    logits.assign(rows_.data(), rows_.data() + rows_.size());
    return okStatus();
  }
  void reorder(const std::vector<int>& parents) override {
    std::vector<Seq2SeqState> next;
    next.reserve(parents.size());
    for (int p : parents) next.push_back(states_[static_cast<size_t>(p)]);
    states_ = std::move(next);
  }

 private:
  const Seq2SeqConfig& c_;
  const Seq2SeqWeights& w_;
  const std::string& src_;
  std::vector<Seq2SeqState> states_;
  Mat rows_;
};

}  // namespace

Result<std::vector<BeamHypothesis>> beamSearch(const Seq2SeqConfig& c, const Seq2SeqWeights& w,
                                               const Seq2SeqState& encoded, const BeamSettings& b,
                                               int maxLength, const std::string& src,
                                               const ProgressFn& progress) {
  Seq2SeqState start;  // what decoding needs: the cross-attention keys and values, an empty cache
  start.sourceIds = encoded.sourceIds;
  start.decoder = encoded.decoder;
  start.edits = encoded.edits;  // the interventions hold at every step of every beam
  Seq2SeqBeams stepper(c, w, start, b.beams, src);
  return runBeamSearch(stepper, {c.generation.decoderStartTokenId}, c.base.vocabSize, c.generation, b,
                       maxLength, src, progress);
}

}  // namespace attn::models
