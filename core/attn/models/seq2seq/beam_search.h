#pragma once
// Beam search over an encoder-decoder (generation/beam_loop.h runs the search; its prompt is
// the decoder start token).
#include <string>
#include <vector>

#include "attn/models/generation/beam_loop.h"
#include "attn/models/model.h"
#include "attn/models/seq2seq/seq2seq_forward.h"

namespace attn::models {

/// Beam search from `encoded` (encodeSource's state; it is copied, not changed) up to
/// maxLength decoder tokens (decoder start included): the kept hypotheses best first (the
/// first is what generate returns), EOS appended to each shorter than maxLength. `src` names
/// errors; cancellable.
Result<std::vector<BeamHypothesis>> beamSearch(const Seq2SeqConfig& c, const Seq2SeqWeights& w,
                                               const Seq2SeqState& encoded, const BeamSettings& b,
                                               int maxLength, const std::string& src,
                                               const ProgressFn& progress = {});

}  // namespace attn::models
