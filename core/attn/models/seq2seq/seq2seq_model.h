#pragma once
// An encoder-decoder checkpoint (BART, mBART, Marian, T5) opened from a Hugging Face model folder: the source
// sentence through the encoder, the target through the decoder either forced (a target
// text the user gives) or generated greedily as transformers' generate does, with every
// encoder self-attention, decoder self-attention and cross-attention map kept.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/models/gradients/seq2seq_gradient.h"
#include "attn/models/model.h"
#include "attn/models/seq2seq/seq2seq_config.h"
#include "attn/models/seq2seq/seq2seq_forward.h"
#include "attn/status.h"
#include "attn/tokenizers/hf/hf_tokenizer.h"

namespace attn::models {

struct Seq2SeqInfo {
  std::string dir, name, modelType;
  int encoderLayers = 0, decoderLayers = 0, encoderHeads = 0, decoderHeads = 0, dModel = 0, vocabSize = 0;
  int maxPositions = 0;
  int64_t parameters = 0;
  std::string dtype, tokenizerKind;
  GenerationSettings generation;  // config.json, then generation_config.json over it
};

/// What every run of the model may change: per-head interventions on its three stacks
/// (seq2seq_interventions.h; errors name the model's config.json), and whether each head's q,
/// k, v are kept in the run's results (for the step-through; off: the maps only).
struct Seq2SeqRunOptions {
  std::vector<Seq2SeqIntervention> interventions;
  bool keepQkv = false;
};

struct GenerateOptions {
  int maxNewTokens = 0;                 // > 0: the decoder may grow to 1 + maxNewTokens (else max_length)
  int beams = 0;                        // 1: greedy; 2..8: beam search; 0: the config's num_beams
  std::optional<double> lengthPenalty;  // else the config's length_penalty
  std::optional<bool> earlyStopping;    // else the config's early_stopping
  /// Beam search: how many of the closed hypotheses Seq2SeqRun::returned holds, best first
  /// (transformers' num_return_sequences; at most the beams).
  int numReturnSequences = 1;
  /// mBART: language codes ("ro_RO") for the source (replacing the code the tokenizer put in
  /// the source) and for the target (forced as the first generated token, forced_bos_token_id);
  /// "": the checkpoint's. Other families: an error.
  std::string sourceLanguage, targetLanguage;
  /// Sampling (generation/token_sampler.h; one beam): each unset field comes from the
  /// generation config (do_sample, top_k, top_p, temperature).
  std::optional<bool> doSample;
  std::optional<int> topK;
  std::optional<double> topP, temperature;
  uint64_t seed = 0;
  /// Interventions, applied at every step (the key/value cache holds the intervened rows).
  Seq2SeqRunOptions forward;
};

/// One sequence beam search returned: its ids (decoder start first), text and score
/// (sum log p / generated_length^length_penalty).
struct ReturnedSequence {
  std::vector<int> ids;
  std::string text;
  double score = 0;
};

struct Seq2SeqRun {
  Encoding source;
  std::vector<int> targetIds;  // the decoder's input, decoder start first
  std::vector<std::string> targetTokens;
  Seq2SeqAttention attention;
  Mat logits;              // forced decoding: [Nt, vocab] (lm_head + final_logits_bias)
  std::string outputText;  // generation: the generated ids decoded, special tokens left out
  std::string settings;    // generation: the settings used, in words (and the interventions)
  /// Beam search: GenerateOptions::numReturnSequences sequences, best first (the first is
  /// targetIds / outputText, whose maps the run holds); empty for greedy and forced runs.
  std::vector<ReturnedSequence> returned;
};

/// Seq2SeqModel::gradients: the attribution and the decoder's ids and tokens it was read on.
struct Seq2SeqGradientRun {
  Seq2SeqGradientAttribution attribution;
  std::vector<int> targetIds;  // decoder start first
  std::vector<std::string> targetTokens;
};

class Seq2SeqModel {
 public:
  /// As Model::open: a folder, a cache layout or a snapshot. Errors name the file and the fault.
  static Result<std::shared_ptr<const Seq2SeqModel>> open(const std::string& path,
                                                          const ProgressFn& progress = {});
  const Seq2SeqInfo& info() const;
  const HfTokenizer& tokenizer() const;

  /// The source as the tokenizer encodes it (special tokens added); `source` names errors.
  Result<Encoding> encode(std::string_view text, const std::string& source) const;
  /// Forced decoding: the decoder reads decoder_start_token_id then `target` as the tokenizer
  /// encodes it (BART's <s> ... </s>, T5's ... </s>; mBART: forced_bos_token_id, the pieces,
  /// </s>); logits of every row kept.
  Result<Seq2SeqRun> forced(const Encoding& source, std::string_view target, const std::string& targetName,
                            const Seq2SeqRunOptions& options = {}) const;
  /// The same on decoder ids given directly (decoder start included).
  Result<Seq2SeqRun> forcedIds(const Encoding& source, const std::vector<int>& decoderIds,
                               const Seq2SeqRunOptions& options = {}) const;
  /// Greedy generation (or beam search, beam_search.h, or sampling) from decoder_start_token_id until eos or
  /// the length limit, with the config's forced BOS/EOS, no_repeat_ngram_size and bad_words_ids;
  /// the maps cover every token it wrote (the last one fed once more, so its rows are there too).
  Result<Seq2SeqRun> generate(const Encoding& source, const GenerateOptions& options,
                              const ProgressFn& progress = {}) const;

  /// Gradient attribution (gradients/seq2seq_gradient.h) under forced decoding of `target` as
  /// forced() reads it: the logit of token `targetToken` (-1: the one the model predicts) at
  /// options.position (-1: the last decoder row); tokens as forced() names them.
  Result<Seq2SeqGradientRun> gradients(const Encoding& source, std::string_view target,
                                       const std::string& targetName, int targetToken,
                                       const GradientOptions& options, const ProgressFn& progress = {}) const;
  /// One token of the target vocabulary: its text (exactly one token, no special tokens added)
  /// or #ID; errors name `what`.
  Result<int> targetTokenId(const std::string& text, const std::string& what) const;
  /// A target-vocabulary id as text (Marian: target.spm's piece).
  std::string targetTokenText(int id) const;

  ~Seq2SeqModel();
  struct Impl;

 private:
  explicit Seq2SeqModel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Whether `path` is a model folder whose config.json names an encoder-decoder model_type
/// (false for anything unreadable: opening it then says what is wrong).
bool isEncoderDecoderFolder(const std::string& path);

}  // namespace attn::models
