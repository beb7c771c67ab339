// T5ForConditionalGeneration's tensor names (transformers' modeling_t5.py): the shared
// embedding, per block layer.0 = self-attention, layer.1 = cross-attention (decoder) and the
// last layer = the MLP (DenseReluDense), each with its RMS layer_norm (weight only); q, k, v,
// o without bias; relative_attention_bias in block 0 of each stack only; final_layer_norm;
// lm_head.weight when the embeddings are not tied (T5 v1.1, Flan-T5, mT5).
#include <fmt/format.h>

#include "attn/models/seq2seq/seq2seq_weights.h"
#include "attn/models/weight_loader.h"

namespace attn::models {
namespace {

/// T5Attention's projections: q, k, v [inner, d], o [d, inner], inner = heads * d_kv.
Status queueT5Attention(WeightLoader& l, const std::string& p, int64_t d, int64_t inner, LinearWeight& q,
                        LinearWeight& k, LinearWeight& v, LinearWeight& o) {
  Status st = l.needLinear(q, p + "q", d, inner, false, false);
  if (st) st = l.needLinear(k, p + "k", d, inner, false, false);
  if (st) st = l.needLinear(v, p + "v", d, inner, false, false);
  if (st) st = l.needLinear(o, p + "o", inner, d, false, false);
  return st;
}

/// T5LayerFF: DenseReluDense (wi, wo) or the gated one (wi_0 through the activation, times wi_1).
Status queueT5Ffn(WeightLoader& l, const Seq2SeqConfig& c, const std::string& p, LayerWeights& L) {
  const int64_t d = c.base.dModel, ff = c.encoderFfn;
  Status st = c.gatedFfn ? l.needLinear(L.gate, p + "DenseReluDense.wi_0", d, ff, false, false)
                         : l.needLinear(L.up, p + "DenseReluDense.wi", d, ff, false, false);
  if (st && c.gatedFfn) st = l.needLinear(L.up, p + "DenseReluDense.wi_1", d, ff, false, false);
  if (st) st = l.needLinear(L.down, p + "DenseReluDense.wo", ff, d, false, false);
  if (st) st = l.needNorm(L.mlpNorm, p + "layer_norm", false);
  return st;
}

}  // namespace

Status queueT5Weights(WeightLoader& l, const Seq2SeqConfig& c, Seq2SeqWeights& w, ModelWeights& store) {
  const int64_t d = c.base.dModel, V = c.base.vocabSize, inner = int64_t{c.encoderHeads} * c.kvDim;
  if (auto st = l.choosePrefix("encoder.block.0.layer.0.SelfAttention.q.weight", {""}); !st) return st;
  std::string shared = "shared.weight";  // else a stack's tied copy, when the shared one was left out
  for (const char* alt : {"shared.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight"})
    if (l.has(alt)) {
      shared = alt;
      break;
    }
  Status st = l.need(store.tokenEmbedding, shared, {V, d});
  const int64_t buckets = c.relativeBuckets, heads = c.encoderHeads;
  if (st)
    st = l.need(w.encoderRelativeBias, "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
                {buckets, heads});
  if (st)
    st = l.need(w.decoderRelativeBias, "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
                {buckets, heads});
  for (int i = 0; st && i < c.encoderLayers; ++i) {
    const std::string p = fmt::format("encoder.block.{}.layer.", i);
    LayerWeights& L = store.layers[static_cast<size_t>(i)];
    st = queueT5Attention(l, p + "0.SelfAttention.", d, inner, L.q, L.k, L.v, L.o);
    if (st) st = l.needNorm(L.attnNorm, p + "0.layer_norm", false);
    if (st) st = queueT5Ffn(l, c, p + "1.", L);
  }
  for (int i = 0; st && i < c.decoderLayers; ++i) {
    const std::string p = fmt::format("decoder.block.{}.layer.", i);
    DecoderLayerWeights& D = w.decoder[static_cast<size_t>(i)];
    st = queueT5Attention(l, p + "0.SelfAttention.", d, inner, D.self.q, D.self.k, D.self.v, D.self.o);
    if (st) st = l.needNorm(D.self.attnNorm, p + "0.layer_norm", false);
    if (st)
      st = queueT5Attention(l, p + "1.EncDecAttention.", d, inner, D.crossQ, D.crossK, D.crossV, D.crossO);
    if (st) st = l.needNorm(D.crossNorm, p + "1.layer_norm", false);
    if (st) st = queueT5Ffn(l, c, p + "2.", D.self);
  }
  if (st) st = l.needNorm(w.encoderFinalNorm, "encoder.final_layer_norm", false);
  if (st) st = l.needNorm(w.decoderFinalNorm, "decoder.final_layer_norm", false);
  if (st && !c.tiedLmHead) st = l.need(w.lmHead, "lm_head.weight", {V, d});
  return st;
}

}  // namespace attn::models
