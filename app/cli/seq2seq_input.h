#pragma once
// An encoder-decoder model opened from --model with its source text encoded (translate, run
// --target-text, gradients).
#include <memory>

#include "attn/models/seq2seq/seq2seq_model.h"
#include "input_options.h"

namespace attn::cli {

struct Seq2SeqOpened {
  std::shared_ptr<const models::Seq2SeqModel> model;
  models::Encoding source;
  std::vector<models::Seq2SeqIntervention> interventions;  // --intervene, checked against the model
};

/// Opens --model as an encoder-decoder model and encodes the source text (--text or --text-file);
/// --intervene STACK:KIND:L.H parsed (the stacks' sizes are checked by the run).
Result<Seq2SeqOpened> openSeq2Seq(const InputOptions& o);

}  // namespace attn::cli
