// T5 (Raffel et al. 2020; transformers' modeling_t5.py, T5ForConditionalGeneration): token
// embeddings with no scale and no absolute positions; pre-norm blocks with T5LayerNorm (RMS:
// no mean subtracted, no bias); attention scores q k^T without the 1/sqrt(d_kv) of Vaswani
// et al. 2017 (folded into the initialisation), plus a bucketed relative position bias that
// each stack's first layer computes and every layer adds (bidirectional in the encoder,
// causal in the decoder; cross-attention has none); MLP relu(wi x) (v1.0) or
// act(wi_0 x) * wi_1 x (v1.1, Flan-T5, mT5: gated-gelu); a final_layer_norm per stack; the
// d_model^-0.5 rescale before a tied lm_head is applied in decodeRows (c.lmHeadScale).
#include "attn/models/nn_ops.h"
#include "attn/models/seq2seq/relative_position.h"
#include "attn/models/seq2seq/seq2seq_forward.h"

namespace attn::models {
namespace {

void t5Embed(const Seq2SeqConfig& c, const Seq2SeqWeights& w, bool, const std::vector<int>& ids, int,
             Mat& out) {
  out.resize(static_cast<Eigen::Index>(ids.size()), c.base.dModel);
  for (size_t i = 0; i < ids.size(); ++i)
    w.store.tokenEmbedding.rowTo(ids[i], &out(static_cast<Eigen::Index>(i), 0));
}

/// h += MLP(RMSNorm(h)): T5LayerFF with T5DenseActDense or T5DenseGatedActDense.
void t5Ffn(const Seq2SeqConfig& c, const LayerWeights& L, Mat& h) {
  Mat x, u, o;
  rmsNorm(h, L.mlpNorm, c.base.normEps, x);
  linear(x, L.up, u);
  if (c.gatedFfn) {
    Mat g;
    linear(x, L.gate, g);
    activate(g, c.base.activation);
    u.array() *= g.array();
  } else {
    activate(u, c.base.activation);
  }
  linear(u, L.down, o);
  h += o;
}

void t5EncoderLayer(const Seq2SeqConfig& c, const Seq2SeqWeights& w, int l, Mat& h, Seq2SeqState& s) {
  const LayerWeights& L = w.store.layers[static_cast<size_t>(l)];
  const int n = static_cast<int>(h.rows());
  if (l == 0)  // T5Attention.compute_bias in the first block, passed on to the others
    relativePositionBias(w.encoderRelativeBias, 0, n, n, true, c.relativeMaxDistance, s.encoderBias);
  Mat x, q, k, v, concat, o;
  rmsNorm(h, L.attnNorm, c.base.normEps, x);
  linear(x, L.q, q);
  linear(x, L.k, k);
  linear(x, L.v, v);
  std::vector<Mat> maps;
  seq2seqAttention(q, k, v, c.encoderHeads, 1.0f, -1, concat, maps, &s.encoderBias,
                   seq2seqEditsAt(s, Seq2SeqStack::Encoder, l, 0));
  keepEncoderQkv(s, q, k, v);
  linear(concat, L.o, o);
  h += o;
  s.encoderMaps.push_back(std::move(maps));
  s.encoderConcat.push_back(std::move(concat));
  s.encoderAttnOut.push_back(std::move(o));
  t5Ffn(c, L, h);
}

void t5DecoderLayer(const Seq2SeqConfig& c, const Seq2SeqWeights& w, int l, int first, Mat& h,
                    Seq2SeqState& s) {
  const DecoderLayerWeights& D = w.decoder[static_cast<size_t>(l)];
  DecoderLayerCache& cache = s.decoder[static_cast<size_t>(l)];
  const int m = static_cast<int>(h.rows());
  if (l == 0)  // the new rows' bias over every key fed so far, theirs included
    relativePositionBias(w.decoderRelativeBias, first, m, first + m, false, c.relativeMaxDistance,
                         s.decoderBias);
  Mat x, q, qc, k, v, selfConcat, selfOut, crossConcat, crossOut;
  rmsNorm(h, D.self.attnNorm, c.base.normEps, x);
  linear(x, D.self.q, q);
  linear(x, D.self.k, k);
  linear(x, D.self.v, v);
  appendCacheRows(cache.selfK, k);
  appendCacheRows(cache.selfV, v);
  std::vector<Mat> selfMaps, crossMaps;
  seq2seqAttention(q, cache.selfK, cache.selfV, c.decoderHeads, 1.0f, first, selfConcat, selfMaps,
                   &s.decoderBias, seq2seqEditsAt(s, Seq2SeqStack::Decoder, l, first));
  linear(selfConcat, D.self.o, selfOut);
  h += selfOut;
  rmsNorm(h, D.crossNorm, c.base.normEps, x);
  linear(x, D.crossQ, qc);
  seq2seqAttention(qc, cache.crossK, cache.crossV, c.decoderHeads, 1.0f, -1, crossConcat, crossMaps, nullptr,
                   seq2seqEditsAt(s, Seq2SeqStack::Cross, l, first));
  keepDecoderQueries(s, cache, q, qc);
  linear(crossConcat, D.crossO, crossOut);
  h += crossOut;
  t5Ffn(c, D.self, h);
  recordDecoderRows(cache, selfMaps, selfConcat, selfOut, crossMaps, crossConcat, crossOut);
}

void t5StackEnd(const Seq2SeqConfig& c, const Seq2SeqWeights& w, bool decoder, Mat& h) {
  Mat x;
  rmsNorm(h, decoder ? w.decoderFinalNorm : w.encoderFinalNorm, c.base.normEps, x);
  h = std::move(x);
}

}  // namespace

Seq2SeqGraph t5Seq2SeqGraph() { return {t5Embed, t5EncoderLayer, t5DecoderLayer, t5StackEnd}; }

}  // namespace attn::models
