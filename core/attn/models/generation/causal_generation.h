#pragma once
// Text generation with a causal language model (GPT-2, the Llama family) as transformers'
// generate runs it on one prompt: greedy search, beam search (generation/beam_loop.h) or
// sampling (generation/token_sampler.h), with the logits processors the checkpoint's
// config.json / generation_config.json turn on (no_repeat_ngram_size, bad_words_ids, forced
// BOS/EOS), stopping at EOS or the token budget. Each step feeds one token through the KV
// cache (causal_decoder.h); the attention of every written token is kept, so the maps over
// the prompt and the generated tokens are those of the final sequence.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attn/models/model.h"
#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"
#include "attn/models/seq2seq/seq2seq_config.h"

namespace attn::models {

struct CausalGenerateOptions {
  int maxNewTokens =
      0;          // > 0: at most this many after the prompt; 0: the config's max_length (prompt included)
  int beams = 0;  // 1: greedy or sampling; 2..8: beam search; 0: the config's num_beams
  std::optional<double> lengthPenalty;   // else the config's length_penalty
  std::optional<bool> earlyStopping;     // else the config's early_stopping
  std::optional<int> noRepeatNgramSize;  // else the config's no_repeat_ngram_size
  // Sampling: each unset field comes from the generation config (do_sample, top_k, top_p, temperature).
  std::optional<bool> doSample;
  std::optional<int> topK;
  std::optional<double> topP, temperature;
  uint64_t seed = 0;
};

struct CausalGeneration {
  std::vector<int> ids;  // the prompt then the generated tokens (what generate returns)
  int promptLength = 0;
  std::vector<std::string> tokens;  // of ids: the prompt's encoding, then the vocabulary strings
  std::string outputText;           // the generated ids decoded, special tokens left out
  /// [layers][heads] maps [N, N] over ids (N = ids.size()), as a forward over the whole
  /// sequence gives them.
  std::vector<std::vector<Mat>> maps;
  std::string settings;  // what it used, in words
};

/// The generation settings of a causal model folder: config.json's fields, then
/// generation_config.json over them (either may be absent; GGUF models: the defaults with
/// the tokenizer's EOS). Errors name the file and the field.
Result<GenerationSettings> causalGenerationSettings(const ModelInfo& info, const ModelConfig& c);

/// Generates after `prompt` (the model's encoding of the text). `src` (config.json) names errors.
Result<CausalGeneration> generateCausal(const ModelConfig& c, const ModelWeights& w, const HfTokenizer& tok,
                                        const GenerationSettings& g, const Encoding& prompt,
                                        const CausalGenerateOptions& o, const std::string& src,
                                        const ProgressFn& progress = {});

}  // namespace attn::models
