// The encoder-decoder forward (seq2seq/seq2seq_forward.cpp, families/bart.cpp, t5.cpp) from
// both stacks' inputs_embeds to one logit under forced decoding, taped, and its backward:
// the decoder from its readout row down to its input embeddings, each cross-attention
// adding its keys' and values' gradient into d(encoder output), then the encoder from that
// down to the source embeddings.
#include "attn/models/gradients/seq2seq_tape.h"

namespace attn::models {
namespace {

struct Seq2SeqStackTape {
  NormTape embeddingNorm, finalNorm;
  std::vector<Seq2SeqLayerTape> layers;
};

AttentionWeights selfWeights(const LayerWeights& L) { return {&L.q, &L.k, &L.v, &L.o}; }
AttentionWeights crossWeights(const DecoderLayerWeights& D) {
  return {&D.crossQ, &D.crossK, &D.crossV, &D.crossO};
}

const NormWeight& embeddingNormOf(const Seq2SeqPass& p, bool decoder) {
  return decoder ? p.weights.decoderEmbeddingNorm : p.weights.encoderEmbeddingNorm;
}
const NormWeight& finalNormOf(const Seq2SeqPass& p, bool decoder) {
  return decoder ? p.weights.decoderFinalNorm : p.weights.encoderFinalNorm;
}

/// h = LayerNorm(x + positions) (BART; Marian: no norm) or x (T5: no absolute positions).
void embedTaped(const Seq2SeqPass& p, bool decoder, const Mat& x, Seq2SeqStackTape& t, Mat& h) {
  h = x;
  if (p.t5()) return;
  const WeightTensor& pos = decoder ? p.weights.decoderPositions : p.weights.encoderPositions;
  h += pos.mat().middleRows(p.config.positionOffset, x.rows());
  const NormWeight& n = embeddingNormOf(p, decoder);
  if (n.gamma.empty()) return;
  Mat y;
  layerNormTaped(h, n, p.config.base.normEps, y, t.embeddingNorm);
  h = std::move(y);
}

void embedBackward(const Seq2SeqPass& p, bool decoder, const Seq2SeqStackTape& t, const Mat& dh, Mat& dx) {
  const NormWeight& n = embeddingNormOf(p, decoder);
  if (p.t5() || n.gamma.empty())
    dx = dh;  // positions are added: the identity
  else
    layerNormBackward(dh, n, t.embeddingNorm, dx);
}

/// The stack's final norm (T5's final_layer_norm, mBART's layer_norm; none in BART, Marian).
void stackEndTaped(const Seq2SeqPass& p, bool decoder, Seq2SeqStackTape& t, Mat& h) {
  const NormWeight& n = finalNormOf(p, decoder);
  if (n.gamma.empty()) return;
  Mat y;
  seq2seqNorm(p, h, n, y, t.finalNorm);
  h = std::move(y);
}

void stackEndBackward(const Seq2SeqPass& p, bool decoder, const Seq2SeqStackTape& t, Mat& dh) {
  const NormWeight& n = finalNormOf(p, decoder);
  if (n.gamma.empty()) return;
  Mat dx;
  seq2seqNormBackward(p, dh, n, t.finalNorm, dx);
  dh = std::move(dx);
}

void seq2seqMlpSublayerTaped(const Seq2SeqPass& p, const LayerWeights& L, Mat& h, MlpSublayerTape& t) {
  Mat o;
  tapedSeq2SeqMlp(p, L, residualInput(p, h, L.mlpNorm, t.res), t, o);
  residualOutput(p, h, o, L.mlpNorm, t.res);
}

void seq2seqMlpSublayerBackward(const Seq2SeqPass& p, const LayerWeights& L, const MlpSublayerTape& t,
                                Mat& dh) {
  Mat dx;
  residualOutputBackward(p, dh, L.mlpNorm, t.res);
  seq2seqMlpBackward(p, L, t, dh, dx);
  residualInputBackward(p, dh, dx, L.mlpNorm, t.res);
}

void encoderLayerTaped(const Seq2SeqPass& p, int l, Mat& h, Seq2SeqLayerTape& t) {
  const LayerWeights& L = p.weights.store.layers[static_cast<size_t>(l)];
  Mat o;
  const Mat& x = residualInput(p, h, L.attnNorm, t.self.res);
  tapedSeq2SeqAttention(p, selfWeights(L), x, x, p.config.encoderHeads, false,
                        p.t5() ? &p.encoderBias : nullptr, t.self.attn, o);
  residualOutput(p, h, o, L.attnNorm, t.self.res);
  seq2seqMlpSublayerTaped(p, L, h, t.mlp);
}

void encoderLayerBackward(const Seq2SeqPass& p, int l, const Seq2SeqLayerTape& t, Mat& dh,
                          std::vector<Mat>* maps) {
  const LayerWeights& L = p.weights.store.layers[static_cast<size_t>(l)];
  Mat dx;
  seq2seqMlpSublayerBackward(p, L, t.mlp, dh);
  residualOutputBackward(p, dh, L.attnNorm, t.self.res);
  seq2seqAttentionBackward(selfWeights(L), t.self.attn, dh, dx, nullptr, maps);
  residualInputBackward(p, dh, dx, L.attnNorm, t.self.res);
}

void decoderLayerTaped(const Seq2SeqPass& p, int l, const Mat& encoderOut, Mat& h, Seq2SeqLayerTape& t) {
  const DecoderLayerWeights& D = p.weights.decoder[static_cast<size_t>(l)];
  const int heads = p.config.decoderHeads;
  Mat o;
  const Mat* x = &residualInput(p, h, D.self.attnNorm, t.self.res);
  tapedSeq2SeqAttention(p, selfWeights(D.self), *x, *x, heads, true, p.t5() ? &p.decoderBias : nullptr,
                        t.self.attn, o);
  residualOutput(p, h, o, D.self.attnNorm, t.self.res);
  x = &residualInput(p, h, D.crossNorm, t.cross.res);
  tapedSeq2SeqAttention(p, crossWeights(D), *x, encoderOut, heads, false, nullptr, t.cross.attn, o);
  residualOutput(p, h, o, D.crossNorm, t.cross.res);
  seq2seqMlpSublayerTaped(p, D.self, h, t.mlp);
}

void decoderLayerBackward(const Seq2SeqPass& p, int l, const Seq2SeqLayerTape& t, Mat& dh, Mat& dEncoder,
                          std::vector<Mat>* selfMaps, std::vector<Mat>* crossMaps) {
  const DecoderLayerWeights& D = p.weights.decoder[static_cast<size_t>(l)];
  Mat dx;
  seq2seqMlpSublayerBackward(p, D.self, t.mlp, dh);
  residualOutputBackward(p, dh, D.crossNorm, t.cross.res);
  seq2seqAttentionBackward(crossWeights(D), t.cross.attn, dh, dx, &dEncoder, crossMaps);
  residualInputBackward(p, dh, dx, D.crossNorm, t.cross.res);
  residualOutputBackward(p, dh, D.self.attnNorm, t.self.res);
  seq2seqAttentionBackward(selfWeights(D.self), t.self.attn, dh, dx, nullptr, selfMaps);
  residualInputBackward(p, dh, dx, D.self.attnNorm, t.self.res);
}

/// Layer l's heads' maps into the layer-major list `all` (sized on first use).
void keepLayerMaps(std::vector<Mat>* all, int layers, int l, std::vector<Mat>& heads) {
  if (!all) return;
  const size_t H = heads.size();
  if (all->size() != static_cast<size_t>(layers) * H) all->assign(static_cast<size_t>(layers) * H, Mat{});
  for (size_t h = 0; h < H; ++h) (*all)[static_cast<size_t>(l) * H + h] = std::move(heads[h]);
}

/// The target's lm_head row and its final_logits_bias entry.
float headBias(const Seq2SeqPass& p) {
  if (p.weights.finalLogitsBias.empty()) return 0.0f;
  Eigen::RowVectorXf b(p.weights.finalLogitsBias.cols);
  p.weights.finalLogitsBias.rowTo(0, b.data());
  return b(p.target);
}

}  // namespace

float seq2seqLogitGradient(const Seq2SeqPass& p, const Mat& xs, const Mat& xt, Seq2SeqLogitGrads* grads,
                           Eigen::RowVectorXf* row) {
  const Seq2SeqConfig& c = p.config;
  Seq2SeqStackTape enc, dec;
  enc.layers.resize(static_cast<size_t>(c.encoderLayers));
  dec.layers.resize(static_cast<size_t>(c.decoderLayers));
  Mat e, h;
  embedTaped(p, false, xs, enc, e);
  for (int l = 0; l < c.encoderLayers; ++l) encoderLayerTaped(p, l, e, enc.layers[static_cast<size_t>(l)]);
  stackEndTaped(p, false, enc, e);
  embedTaped(p, true, xt, dec, h);
  for (int l = 0; l < c.decoderLayers; ++l) decoderLayerTaped(p, l, e, h, dec.layers[static_cast<size_t>(l)]);
  stackEndTaped(p, true, dec, h);
  const Eigen::RowVectorXf read = h.row(p.position) * c.lmHeadScale;
  if (row) *row = read;
  Eigen::RowVectorXf head(p.weights.lmHead.cols);
  p.weights.lmHead.rowTo(p.target, head.data());
  const float logit = read.dot(head) + headBias(p);
  if (!grads) return logit;
  Mat dh = Mat::Zero(h.rows(), h.cols()), de = Mat::Zero(e.rows(), e.cols());
  dh.row(p.position) = head * c.lmHeadScale;
  stackEndBackward(p, true, dec, dh);
  std::vector<Mat> selfMaps, crossMaps;
  const bool maps = grads->decoder != nullptr;
  for (int l = c.decoderLayers - 1; l >= 0; --l) {
    decoderLayerBackward(p, l, dec.layers[static_cast<size_t>(l)], dh, de, maps ? &selfMaps : nullptr,
                         maps ? &crossMaps : nullptr);
    if (maps) keepLayerMaps(grads->decoder, c.decoderLayers, l, selfMaps);
    if (maps) keepLayerMaps(grads->cross, c.decoderLayers, l, crossMaps);
  }
  embedBackward(p, true, dec, dh, grads->dTarget);
  stackEndBackward(p, false, enc, de);
  for (int l = c.encoderLayers - 1; l >= 0; --l) {
    encoderLayerBackward(p, l, enc.layers[static_cast<size_t>(l)], de, maps ? &selfMaps : nullptr);
    if (maps) keepLayerMaps(grads->encoder, c.encoderLayers, l, selfMaps);
  }
  embedBackward(p, false, enc, de, grads->dSource);
  return logit;
}

}  // namespace attn::models
