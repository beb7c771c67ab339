#pragma once
// config.json (and generation_config.json) of an encoder-decoder checkpoint, reduced to
// what the seq2seq forward and generation need: BART (Lewis et al. 2020), mBART (Liu et al. 2020), Marian
// (Junczys-Dowmunt et al. 2018, the opus-mt models) and T5 / mT5 (Raffel et al. 2020) as
// transformers' BartConfig, MBartConfig, MarianConfig and T5Config describe them.
#include <string>
#include <string_view>
#include <vector>

#include "attn/models/generation/token_sampler.h"
#include "attn/models/model_config.h"
#include "attn/status.h"

namespace attn::models {

/// How decoding starts, stops and which tokens it forces (GenerationConfig fields).
struct GenerationSettings {
  int decoderStartTokenId = -1;
  int bosTokenId = -1, eosTokenId = -1, padTokenId = -1;
  /// eos_token_id given as a list (Llama 3 Instruct: <|end_of_text|>, <|eot_id|>): decoding stops at
  /// any of them, as transformers' EosTokenCriteria; eosTokenId is the list's first. Empty: just eosTokenId.
  std::vector<int> eosTokenIds;
  int forcedBosTokenId = -1;  // forced as the first generated token (-1: none)
  int forcedEosTokenId = -1;  // forced when one token is left before maxLength (-1: none)
  /// forced_eos_token_id given as a list: ForcedEOSTokenLogitsProcessor leaves every id of it
  /// possible (score 0, the rest -inf), so greedy search takes the smallest (torch.argmax's first
  /// maximum). Empty: just forcedEosTokenId.
  std::vector<int> forcedEosTokenIds;
  int maxLength = 20;         // decoder length, decoder start included (transformers' default)
  int noRepeatNgramSize = 0;  // 0: off
  int numBeams = 1;
  double lengthPenalty = 1.0;  // beam search: a hypothesis scores sum log p / length^lengthPenalty
  bool earlyStopping = false;  // beam search: stop once num_beams hypotheses are closed
  /// NoBadWordsLogitsProcessor: a list's last token is banned after the rest of it
  /// (a one-token list: always; Marian bans its pad token this way).
  std::vector<std::vector<int>> badWordsIds;
  /// do_sample, top_k, top_p, temperature (the seed is the caller's).
  SamplingSettings sampling;
  std::string source;  // the file the settings came from

  /// Whether `id` ends a sequence (eosTokenId or any id of the eos list).
  bool isEos(int id) const {
    if (id < 0) return false;
    if (id == eosTokenId) return true;
    for (int e : eosTokenIds)
      if (e == id) return true;
    return false;
  }
  /// eos_token_id as the settings line prints it: "2", or the list "[128001, 128009]".
  std::string eosText() const;
  /// forced_eos_token_id the same way.
  std::string forcedEosText() const;
  /// The ids forced at maxLength - 1 (none: empty).
  std::vector<int> forcedEosSet() const {
    if (!forcedEosTokenIds.empty()) return forcedEosTokenIds;
    return forcedEosTokenId >= 0 ? std::vector<int>{forcedEosTokenId} : std::vector<int>{};
  }
};

/// Which graph the forward builds (families/bart.cpp, families/t5.cpp).
enum class Seq2SeqFamily { Bart, T5 };

struct Seq2SeqConfig {
  /// d_model, vocab_size, activation, the norm epsilon and model_type, as the shared layers
  /// read them; layers = encoder layers, heads = encoder heads (the weight loader's messages).
  ModelConfig base;
  int encoderLayers = 0, decoderLayers = 0, encoderHeads = 0, decoderHeads = 0;
  int encoderFfn = 0, decoderFfn = 0;
  int maxPositions = 0;         // rows of the position tables (learned: plus positionOffset)
  int positionOffset = 2;       // BartLearnedPositionalEmbedding: position p is row p + 2
  bool scaleEmbedding = false;  // token embeddings times sqrt(d_model)
  /// Marian: MarianSinusoidalPositionalEmbedding's fixed table (not stored in checkpoints)
  /// instead of learned positions, and no layernorm_embedding.
  bool sinusoidalPositions = false;
  /// mBART (Liu et al. 2020): pre-LayerNorm blocks and a final layer_norm on each stack.
  bool preNorm = false;
  GenerationSettings generation;
  Seq2SeqFamily family = Seq2SeqFamily::Bart;
  /// T5 (Raffel et al. 2020): each head's width d_kv (heads * d_kv may differ from d_model;
  /// 0: d_model / heads), the relative position buckets (relative_attention_num_buckets,
  /// relative_attention_max_distance), a gated MLP (feed_forward_proj "gated-*": act(wi_0 x) * wi_1 x).
  int kvDim = 0;
  int relativeBuckets = 0, relativeMaxDistance = 0;
  bool gatedFfn = false;
  bool tiedLmHead = true;    // lm_head is the shared embedding (else lm_head.weight)
  float lmHeadScale = 1.0f;  // the decoder output times this before lm_head (tied T5: d_model^-0.5)

  int headDim(bool decoder) const {
    return kvDim > 0 ? kvDim : base.dModel / (decoder ? decoderHeads : encoderHeads);
  }
};

/// model_type values of encoder-decoder checkpoints (bart, mbart, marian, t5, mt5, ...).
bool isEncoderDecoderType(std::string_view modelType);

/// Parses config.json text; `source` names the file in errors. generation settings come from
/// its fields (decoder_start_token_id, forced_*, max_length, ...) until readGenerationConfig.
Result<Seq2SeqConfig> parseSeq2SeqConfig(std::string_view json, const std::string& source);

/// generation_config.json's fields over `g` (those it names); `source` names it in errors.
Status readGenerationConfig(std::string_view json, const std::string& source, int vocabSize,
                            GenerationSettings& g);

}  // namespace attn::models
