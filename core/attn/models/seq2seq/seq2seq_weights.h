#pragma once
// The tensors of an encoder-decoder checkpoint (BartForConditionalGeneration's names),
// found and checked through the shared WeightLoader.
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
};

/// Every tensor config.json implies, from dir's model.safetensors (or its shards).
Result<Seq2SeqWeights> loadSeq2SeqWeights(const std::string& dir, const Seq2SeqConfig& config,
                                          const ProgressFn& progress = {});

}  // namespace attn::models
