// BART (Lewis et al. 2020; transformers' modeling_bart.py): token embeddings (times
// sqrt(d_model) with scale_embedding) plus learned positions read at p + 2, a LayerNorm
// over their sum (layernorm_embedding), then post-LayerNorm blocks as Vaswani et al. 2017,
// figure 1 draws them: self-attention, residual, LayerNorm; in the decoder causal, then
// cross-attention over the encoder output, residual, LayerNorm; MLP, residual, LayerNorm.
// Queries are scaled by head_dim^-0.5 (BartAttention.scaling). Marian (modeling_marian.py)
// is the same graph with fixed sinusoidal positions read at p and no layernorm_embedding
// (its weights say which: seq2seq_weights.cpp), usually with swish and scale_embedding.
// mBART (Liu et al. 2020; modeling_mbart.py) has BART's embeddings but pre-LayerNorm blocks
// (each sublayer reads LayerNorm(h) and adds its output to h) and a layer_norm after each stack.
#include <cmath>

#include "attn/models/nn_ops.h"
#include "attn/models/seq2seq/seq2seq_forward.h"

namespace attn::models {
namespace {

void bartEmbed(const Seq2SeqConfig& c, const Seq2SeqWeights& w, bool decoder, const std::vector<int>& ids,
               int first, Mat& out) {
  const int n = static_cast<int>(ids.size()), d = c.base.dModel;
  const float scale = c.scaleEmbedding ? std::sqrt(static_cast<float>(d)) : 1.0f;  // BartScaledWordEmbedding
  const WeightTensor& pos = decoder ? w.decoderPositions : w.encoderPositions;
  Mat h(n, d);
  for (int i = 0; i < n; ++i) {
    w.store.tokenEmbedding.rowTo(ids[static_cast<size_t>(i)], &h(i, 0));
    h.row(i) *= scale;
    h.row(i) += pos.mat().row(first + i + c.positionOffset);
  }
  const NormWeight& norm = decoder ? w.decoderEmbeddingNorm : w.encoderEmbeddingNorm;
  if (norm.gamma.empty())
    out = std::move(h);  // Marian: no layernorm_embedding
  else
    layerNorm(h, norm, c.base.normEps, out);
}

/// x = LayerNorm(x + sub) (the post-LN residual); mBART's pre-LN: x += sub (the sublayer read
/// LayerNorm(x): sublayerInput).
void addAndNorm(const Seq2SeqConfig& c, Mat& x, Mat& sub, const NormWeight& n) {
  if (c.preNorm) {
    x += sub;
    return;
  }
  sub += x;
  layerNorm(sub, n, c.base.normEps, x);
}

/// What a sublayer reads: h (post-LN) or LayerNorm(h) (pre-LN, mBART).
const Mat& sublayerInput(const Seq2SeqConfig& c, const Mat& h, const NormWeight& n, Mat& scratch) {
  if (!c.preNorm) return h;
  layerNorm(h, n, c.base.normEps, scratch);
  return scratch;
}

void bartMlp(const Seq2SeqConfig& c, const LayerWeights& L, Mat& h) {
  Mat x, u, o;
  linear(sublayerInput(c, h, L.mlpNorm, x), L.up, u);
  activate(u, c.base.activation);
  linear(u, L.down, o);
  addAndNorm(c, h, o, L.mlpNorm);
}

void bartEncoderLayer(const Seq2SeqConfig& c, const Seq2SeqWeights& w, int l, Mat& h, Seq2SeqState& s) {
  const LayerWeights& L = w.store.layers[static_cast<size_t>(l)];
  const float scale = 1.0f / std::sqrt(static_cast<float>(c.headDim(false)));
  Mat scratch, q, k, v, concat, o;
  const Mat& x = sublayerInput(c, h, L.attnNorm, scratch);
  linear(x, L.q, q);
  linear(x, L.k, k);
  linear(x, L.v, v);
  std::vector<Mat> maps;
  seq2seqAttention(q, k, v, c.encoderHeads, scale, -1, concat, maps, nullptr,
                   seq2seqEditsAt(s, Seq2SeqStack::Encoder, l, 0));
  keepEncoderQkv(s, q, k, v);
  linear(concat, L.o, o);
  s.encoderMaps.push_back(std::move(maps));
  s.encoderConcat.push_back(concat);
  s.encoderAttnOut.push_back(o);
  addAndNorm(c, h, o, L.attnNorm);
  bartMlp(c, L, h);
}

void bartDecoderLayer(const Seq2SeqConfig& c, const Seq2SeqWeights& w, int l, int first, Mat& h,
                      Seq2SeqState& s) {
  const DecoderLayerWeights& D = w.decoder[static_cast<size_t>(l)];
  DecoderLayerCache& cache = s.decoder[static_cast<size_t>(l)];
  const float scale = 1.0f / std::sqrt(static_cast<float>(c.headDim(true)));
  Mat scratch, q, qc, k, v, selfConcat, selfOut, crossConcat, crossOut;
  const Mat* x = &sublayerInput(c, h, D.self.attnNorm, scratch);
  linear(*x, D.self.q, q);
  linear(*x, D.self.k, k);
  linear(*x, D.self.v, v);
  appendCacheRows(cache.selfK, k);
  appendCacheRows(cache.selfV, v);
  std::vector<Mat> selfMaps, crossMaps;
  seq2seqAttention(q, cache.selfK, cache.selfV, c.decoderHeads, scale, first, selfConcat, selfMaps, nullptr,
                   seq2seqEditsAt(s, Seq2SeqStack::Decoder, l, first));
  linear(selfConcat, D.self.o, selfOut);
  Mat sub = selfOut;
  addAndNorm(c, h, sub, D.self.attnNorm);
  x = &sublayerInput(c, h, D.crossNorm, scratch);
  linear(*x, D.crossQ, qc);
  seq2seqAttention(qc, cache.crossK, cache.crossV, c.decoderHeads, scale, -1, crossConcat, crossMaps, nullptr,
                   seq2seqEditsAt(s, Seq2SeqStack::Cross, l, first));
  keepDecoderQueries(s, cache, q, qc);
  linear(crossConcat, D.crossO, crossOut);
  sub = crossOut;
  addAndNorm(c, h, sub, D.crossNorm);
  bartMlp(c, D.self, h);
  recordDecoderRows(cache, selfMaps, selfConcat, selfOut, crossMaps, crossConcat, crossOut);
}

/// mBART's layer_norm after each stack (none in BART and Marian).
void bartStackEnd(const Seq2SeqConfig& c, const Seq2SeqWeights& w, bool decoder, Mat& h) {
  const NormWeight& n = decoder ? w.decoderFinalNorm : w.encoderFinalNorm;
  if (n.gamma.empty()) return;
  Mat x;
  layerNorm(h, n, c.base.normEps, x);
  h = std::move(x);
}

}  // namespace

Seq2SeqGraph bartSeq2SeqGraph() { return {bartEmbed, bartEncoderLayer, bartDecoderLayer, bartStackEnd}; }

}  // namespace attn::models
