// BART (Lewis et al. 2020; transformers' modeling_bart.py): token embeddings (times
// sqrt(d_model) with scale_embedding) plus learned positions read at p + 2, a LayerNorm
// over their sum (layernorm_embedding), then post-LayerNorm blocks as Vaswani et al. 2017,
// figure 1 draws them: self-attention, residual, LayerNorm; in the decoder causal, then
// cross-attention over the encoder output, residual, LayerNorm; MLP, residual, LayerNorm.
// Queries are scaled by head_dim^-0.5 (BartAttention.scaling). Marian (modeling_marian.py)
// is the same graph with fixed sinusoidal positions read at p and no layernorm_embedding
// (its weights say which: seq2seq_weights.cpp), usually with swish and scale_embedding.
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

/// x = LayerNorm(x + sub) (the post-LN residual).
void addAndNorm(Mat& x, Mat& sub, const NormWeight& n, double eps) {
  sub += x;
  layerNorm(sub, n, eps, x);
}

void bartMlp(const Seq2SeqConfig& c, const LayerWeights& L, Mat& h) {
  Mat u, o;
  linear(h, L.up, u);
  activate(u, c.base.activation);
  linear(u, L.down, o);
  addAndNorm(h, o, L.mlpNorm, c.base.normEps);
}

void bartEncoderLayer(const Seq2SeqConfig& c, const Seq2SeqWeights& w, int l, Mat& h, Seq2SeqState& s) {
  const LayerWeights& L = w.store.layers[static_cast<size_t>(l)];
  const float scale = 1.0f / std::sqrt(static_cast<float>(c.headDim(false)));
  Mat q, k, v, concat, o;
  linear(h, L.q, q);
  linear(h, L.k, k);
  linear(h, L.v, v);
  std::vector<Mat> maps;
  seq2seqAttention(q, k, v, c.encoderHeads, scale, -1, concat, maps);
  linear(concat, L.o, o);
  s.encoderMaps.push_back(std::move(maps));
  s.encoderConcat.push_back(concat);
  s.encoderAttnOut.push_back(o);
  addAndNorm(h, o, L.attnNorm, c.base.normEps);
  bartMlp(c, L, h);
}

void bartDecoderLayer(const Seq2SeqConfig& c, const Seq2SeqWeights& w, int l, int first, Mat& h,
                      Seq2SeqState& s) {
  const DecoderLayerWeights& D = w.decoder[static_cast<size_t>(l)];
  DecoderLayerCache& cache = s.decoder[static_cast<size_t>(l)];
  const float scale = 1.0f / std::sqrt(static_cast<float>(c.headDim(true)));
  Mat q, k, v, selfConcat, selfOut, crossConcat, crossOut;
  linear(h, D.self.q, q);
  linear(h, D.self.k, k);
  linear(h, D.self.v, v);
  appendCacheRows(cache.selfK, k);
  appendCacheRows(cache.selfV, v);
  std::vector<Mat> selfMaps, crossMaps;
  seq2seqAttention(q, cache.selfK, cache.selfV, c.decoderHeads, scale, first, selfConcat, selfMaps);
  linear(selfConcat, D.self.o, selfOut);
  Mat sub = selfOut;
  addAndNorm(h, sub, D.self.attnNorm, c.base.normEps);
  linear(h, D.crossQ, q);
  seq2seqAttention(q, cache.crossK, cache.crossV, c.decoderHeads, scale, -1, crossConcat, crossMaps);
  linear(crossConcat, D.crossO, crossOut);
  sub = crossOut;
  addAndNorm(h, sub, D.crossNorm, c.base.normEps);
  bartMlp(c, D.self, h);
  recordDecoderRows(cache, selfMaps, selfConcat, selfOut, crossMaps, crossConcat, crossOut);
}

}  // namespace

Seq2SeqGraph bartSeq2SeqGraph() { return {bartEmbed, bartEncoderLayer, bartDecoderLayer}; }

}  // namespace attn::models
