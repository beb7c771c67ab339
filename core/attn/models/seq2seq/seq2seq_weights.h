#pragma once
// The tensors of an encoder-decoder checkpoint (BartForConditionalGeneration's and
// T5ForConditionalGeneration's names), found and checked through the shared WeightLoader.
#include <string>
#include <vector>

#include "attn/models/model_weights.h"
#include "attn/models/seq2seq/seq2seq_config.h"
#include "attn/status.h"

namespace attn::models {

/// One decoder block: self-attention, cross-attention over the encoder output, MLP.
struct DecoderLayerWeights {
  /// q, k, v, o: self_attn; attnNorm: self_attn_layer_norm; up, down: fc1, fc2;
  /// mlpNorm: final_layer_norm.
  LayerWeights self;
  LinearWeight crossQ, crossK, crossV, crossO;  // encoder_attn
  NormWeight crossNorm;                         // encoder_attn_layer_norm
};

struct Seq2SeqWeights {
  /// Owners of the mappings; store.layers are the encoder blocks (as decoder blocks without
  /// cross-attention), store.tokenEmbedding the shared embedding [vocab, d].
  ModelWeights store;
  /// [max_position_embeddings + offset, d]; Marian: the sinusoidal table, computed at load.
  WeightTensor encoderPositions, decoderPositions;
  NormWeight encoderEmbeddingNorm, decoderEmbeddingNorm;  // layernorm_embedding (empty: Marian)
  std::vector<DecoderLayerWeights> decoder;
  WeightTensor lmHead;           // [vocab, d]: the shared embedding when tied
  WeightTensor finalLogitsBias;  // [1, vocab]; empty: none
  /// T5: relative_attention_bias [buckets, heads] of each stack's first block (shared by its
  /// blocks) and each stack's final_layer_norm (mBART: its layer_norm).
  WeightTensor encoderRelativeBias, decoderRelativeBias;
  NormWeight encoderFinalNorm, decoderFinalNorm;
};

class WeightLoader;
/// T5ForConditionalGeneration's tensors queued on `l` (t5_weights.cpp); `store` is l.out().
Status queueT5Weights(WeightLoader& l, const Seq2SeqConfig& c, Seq2SeqWeights& w, ModelWeights& store);

/// Every tensor config.json implies, from dir's model.safetensors (or its shards).
Result<Seq2SeqWeights> loadSeq2SeqWeights(const std::string& dir, const Seq2SeqConfig& config,
                                          const ProgressFn& progress = {});

}  // namespace attn::models
