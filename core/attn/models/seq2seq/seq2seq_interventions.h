#pragma once
// Per-head interventions on an encoder-decoder model (experiments/interventions.h's kinds:
// ablate, uniform, temperature, mask) addressed to one of its three attention stacks. Ablation
// is Hugging Face's head_mask, decoder_head_mask and cross_attn_head_mask = 0 on that head: its
// probabilities are multiplied by 0, so its output (and its map) is zero (Michel et al. 2019).
// Applied row by row, so forced decoding and generation with the key/value cache agree
// (implemented in seq2seq_forward.cpp, beside the attention that applies them).
#include <string>
#include <string_view>
#include <vector>

#include "attn/masks/mask.h"
#include "attn/models/experiments/interventions.h"
#include "attn/models/seq2seq/seq2seq_config.h"
#include "attn/status.h"
#include "attn/tensor.h"

namespace attn::models {

enum class Seq2SeqStack { Encoder, Decoder, Cross };
/// "encoder", "decoder", "cross".
std::string_view seq2seqStackName(Seq2SeqStack s);
/// In words: "encoder self-attention", "decoder self-attention", "cross-attention".
std::string_view seq2seqStackTitle(Seq2SeqStack s);

struct Seq2SeqIntervention {
  Seq2SeqStack stack = Seq2SeqStack::Encoder;
  HeadIntervention head;  // layer and head 0-based, within the stack
};

/// The CLI form, 1-based: the stack, then parseIntervention's form: "encoder:ablate:1.2",
/// "decoder:uniform:2.1", "cross:temperature:1.3=2", "cross:mask:1.1=window:2".
Result<Seq2SeqIntervention> parseSeq2SeqIntervention(std::string_view spec);
/// The CLI form again (1-based).
std::string formatSeq2SeqIntervention(const Seq2SeqIntervention& iv);
/// Every intervention's CLI form, joined by ", ".
std::string formatSeq2SeqInterventions(const std::vector<Seq2SeqIntervention>& ivs);
/// True when `spec` starts with a stack prefix ("encoder:", "decoder:", "cross:").
bool hasSeq2SeqStackPrefix(std::string_view spec);

/// What the interventions do to one head: HeadEdit's ablation, uniform and temperature
/// (its keep bitmap unused), and the added mask terms ANDed (none: no term).
struct Seq2SeqHeadEdit {
  HeadEdit edit;
  Mask mask;
};
/// Per stack, per layer, per head (an inner vector is empty for an untouched layer).
struct Seq2SeqEdits {
  std::vector<std::vector<Seq2SeqHeadEdit>> encoder, decoder, cross;
  const std::vector<std::vector<Seq2SeqHeadEdit>>& of(Seq2SeqStack s) const {
    return s == Seq2SeqStack::Encoder ? encoder : s == Seq2SeqStack::Decoder ? decoder : cross;
  }
};

/// The edits for `c`'s stacks. Errors, one line naming `src` and the intervention in its CLI
/// form: a layer or head the stack lacks, a temperature that is not positive, a mask term that
/// does not parse or needs tokens.
Result<Seq2SeqEdits> seq2seqEdits(const Seq2SeqConfig& c, const std::vector<Seq2SeqIntervention>& ivs,
                                  const std::string& src);

/// One head's weights from its logits s [m, n] (scaled, bias added, -inf past the causal
/// limit: query row i sees keys 0..causalFirst + i when causalFirst >= 0), with `e` applied:
/// the mask term (rows are firstRow, firstRow + 1, ... of the whole map), then the temperature,
/// the softmax, uniform over the allowed keys, ablation.
void editedHeadSoftmax(const Seq2SeqHeadEdit& e, int firstRow, int causalFirst, Mat& s);

/// p(ids[i + 1] | row i) for each row i < ids.size() - 1 of forced decoding's logits [Nt, V]
/// (softmax over the vocabulary): how likely the model finds each target token.
std::vector<double> targetTokenProbabilities(const Mat& logits, const std::vector<int>& ids);

}  // namespace attn::models
