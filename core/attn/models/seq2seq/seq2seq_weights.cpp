#include "attn/models/seq2seq/seq2seq_weights.h"

#include <fmt/format.h>

#include <cmath>

#include "attn/models/weight_loader.h"

namespace attn::models {
namespace {

/// BartAttention's four projections, all biased.
Status queueBartAttention(WeightLoader& l, const std::string& p, int64_t d, LinearWeight& q, LinearWeight& k,
                          LinearWeight& v, LinearWeight& o) {
  Status st = l.needLinear(q, p + "q_proj", d, d, true, false);
  if (st) st = l.needLinear(k, p + "k_proj", d, d, true, false);
  if (st) st = l.needLinear(v, p + "v_proj", d, d, true, false);
  if (st) st = l.needLinear(o, p + "out_proj", d, d, true, false);
  return st;
}

/// The parts of a BART encoder or decoder block both stacks share.
Status queueBartBlock(WeightLoader& l, const std::string& p, int64_t d, int64_t ffn, LayerWeights& L) {
  Status st = queueBartAttention(l, p + "self_attn.", d, L.q, L.k, L.v, L.o);
  if (st) st = l.needNorm(L.attnNorm, p + "self_attn_layer_norm", true);
  if (st) st = l.needLinear(L.up, p + "fc1", d, ffn, true, false);
  if (st) st = l.needLinear(L.down, p + "fc2", ffn, d, true, false);
  if (st) st = l.needNorm(L.mlpNorm, p + "final_layer_norm", true);
  return st;
}

/// BartForConditionalGeneration ("model." prefix) or a bare BartModel: the shared embedding
/// (model.shared, else a stack's embed_tokens when the shared one was deduplicated away),
/// learned positions, layernorm_embedding, the blocks, final_logits_bias when present.
Status queueBart(WeightLoader& l, const Seq2SeqConfig& c, Seq2SeqWeights& w, ModelWeights& store) {
  const bool learned = !c.sinusoidalPositions;  // Marian: neither stored positions nor layernorm_embedding
  const int64_t d = c.base.dModel, V = c.base.vocabSize, P = int64_t{c.maxPositions} + c.positionOffset;
  if (auto st = l.choosePrefix("encoder.layers.0.self_attn.q_proj.weight", {"model.", ""}); !st) return st;
  std::string shared = "shared.weight";
  for (const char* alt : {"shared.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight"})
    if (l.has("model." + std::string(alt)) || l.has(alt)) {
      shared = alt;
      break;
    }
  Status st = l.need(store.tokenEmbedding, shared, {V, d});
  if (st && learned) st = l.need(w.encoderPositions, "encoder.embed_positions.weight", {P, d});
  if (st && learned) st = l.need(w.decoderPositions, "decoder.embed_positions.weight", {P, d});
  if (st && learned) st = l.needNorm(w.encoderEmbeddingNorm, "encoder.layernorm_embedding", true);
  if (st && learned) st = l.needNorm(w.decoderEmbeddingNorm, "decoder.layernorm_embedding", true);
  for (int i = 0; st && i < c.encoderLayers; ++i)
    st = queueBartBlock(l, fmt::format("encoder.layers.{}.", i), d, c.encoderFfn,
                        store.layers[static_cast<size_t>(i)]);
  for (int i = 0; st && i < c.decoderLayers; ++i) {
    const std::string p = fmt::format("decoder.layers.{}.", i);
    DecoderLayerWeights& D = w.decoder[static_cast<size_t>(i)];
    st = queueBartBlock(l, p, d, c.decoderFfn, D.self);
    if (st) st = queueBartAttention(l, p + "encoder_attn.", d, D.crossQ, D.crossK, D.crossV, D.crossO);
    if (st) st = l.needNorm(D.crossNorm, p + "encoder_attn_layer_norm", true);
  }
  if (st && c.preNorm) st = l.needNorm(w.encoderFinalNorm, "encoder.layer_norm", true);  // mBART
  if (st && c.preNorm) st = l.needNorm(w.decoderFinalNorm, "decoder.layer_norm", true);
  if (st && l.has("final_logits_bias"))
    st = l.need(w.finalLogitsBias, "final_logits_bias", {1, V}, /*bare=*/true);
  return st;
}

/// MarianSinusoidalPositionalEmbedding._init_weight (Vaswani et al. 2017, section 3.5, with the
/// sines in the first half of the columns and the cosines in the second): column i < d/2 of
/// row p is sin(p / 10000^(2i/d)), column d/2 + i cos of the same angle; float64, then float.
Status marianPositionTable(const Seq2SeqConfig& c, Seq2SeqWeights& w, ModelWeights& store) {
  const int64_t n = c.maxPositions, d = c.base.dModel, half = d / 2;
  FloatBuffer buf = allocateWeightBuffer(n * d);
  if (!buf) return Error{fmt::format("out of memory for the {} x {} position table", n, d)};
  float* t = buf.get();
  for (int64_t p = 0; p < n; ++p)
    for (int64_t i = 0; i < half; ++i) {
      const double angle =
          static_cast<double>(p) / std::pow(10000.0, 2.0 * static_cast<double>(i) / static_cast<double>(d));
      t[p * d + i] = static_cast<float>(std::sin(angle));
      t[p * d + half + i] = static_cast<float>(std::cos(angle));
    }
  for (WeightTensor* pos : {&w.encoderPositions, &w.decoderPositions})
    pos->data = t, pos->rows = n, pos->cols = d;
  store.converted.push_back(std::move(buf));
  return okStatus();
}

}  // namespace

Result<Seq2SeqWeights> loadSeq2SeqWeights(const std::string& dir, const Seq2SeqConfig& c,
                                          const ProgressFn& progress) {
  auto opened = openWeightFiles(dir, c.base, progress);
  if (!opened) return opened.error();
  WeightLoader& l = **opened;
  Seq2SeqWeights w;
  ModelWeights& store = l.out();
  // Sized once: queued tensors point into them until materialize().
  store.layers.resize(static_cast<size_t>(c.encoderLayers));
  w.decoder.resize(static_cast<size_t>(c.decoderLayers));
  const Status queued =
      c.family == Seq2SeqFamily::T5 ? queueT5Weights(l, c, w, store) : queueBart(l, c, w, store);
  if (!queued) return queued.error();
  if (auto st = l.materialize(progress); !st) return st.error();
  if (c.tiedLmHead) w.lmHead = store.tokenEmbedding;  // tied: lm_head is the shared embedding
  if (c.sinusoidalPositions)
    if (auto st = marianPositionTable(c, w, store); !st) return st.error();
  w.store = std::move(store);
  return w;
}

}  // namespace attn::models
