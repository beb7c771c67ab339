// The residual sublayers of BART / Marian (post-LN), mBART (pre-LN) and T5 (pre-RMSNorm)
// with their input gradients (seq2seq_tape.h).
#include <cmath>

#include "attn/models/gradients/seq2seq_tape.h"
#include "attn/models/seq2seq/seq2seq_forward.h"

namespace attn::models {

void seq2seqNorm(const Seq2SeqPass& p, const ConstMatRef& x, const NormWeight& n, Mat& y, NormTape& t) {
  if (p.t5())
    rmsNormTaped(x, n, p.config.base.normEps, y, t);
  else
    layerNormTaped(x, n, p.config.base.normEps, y, t);
}

void seq2seqNormBackward(const Seq2SeqPass& p, const ConstMatRef& dy, const NormWeight& n, const NormTape& t,
                         Mat& dx) {
  if (p.t5())
    rmsNormBackward(dy, n, t, dx);
  else
    layerNormBackward(dy, n, t, dx);
}

const Mat& residualInput(const Seq2SeqPass& p, const Mat& h, const NormWeight& n, SublayerTape& t) {
  if (!p.preNorm()) return h;
  seq2seqNorm(p, h, n, t.x, t.norm);
  return t.x;
}

void residualOutput(const Seq2SeqPass& p, Mat& h, Mat& out, const NormWeight& n, SublayerTape& t) {
  if (p.preNorm()) {
    h += out;
    return;
  }
  out += h;
  seq2seqNorm(p, out, n, h, t.norm);
}

void residualOutputBackward(const Seq2SeqPass& p, Mat& dh, const NormWeight& n, const SublayerTape& t) {
  if (p.preNorm()) return;
  Mat ds;
  seq2seqNormBackward(p, dh, n, t.norm, ds);
  dh = std::move(ds);
}

void residualInputBackward(const Seq2SeqPass& p, Mat& dh, const Mat& dx, const NormWeight& n,
                           const SublayerTape& t) {
  if (!p.preNorm()) {
    dh += dx;
    return;
  }
  Mat d;
  seq2seqNormBackward(p, dx, n, t.norm, d);
  dh += d;
}

void tapedSeq2SeqAttention(const Seq2SeqPass& p, const AttentionWeights& w, const Mat& x, const Mat& kv,
                           int heads, bool causal, const std::vector<Mat>* bias, AttentionTape& t, Mat& out) {
  linear(x, *w.q, t.q);
  linear(kv, *w.k, t.k);
  linear(kv, *w.v, t.v);
  t.heads = t.kvHeads = heads;
  t.headDim = static_cast<int>(t.q.cols()) / heads;
  // T5 folds 1/sqrt(d_kv) into its initialisation (Raffel et al. 2020); BartAttention.scaling.
  t.scale = p.t5() ? 1.0f : 1.0f / std::sqrt(static_cast<float>(t.headDim));
  Mat concat;
  seq2seqAttention(t.q, t.k, t.v, heads, t.scale, causal ? 0 : -1, concat, t.probs, bias);
  linear(concat, *w.o, out);
}

void seq2seqAttentionBackward(const AttentionWeights& w, const AttentionTape& t, const Mat& dout, Mat& dx,
                              Mat* dkv, std::vector<Mat>* maps) {
  Mat dconcat, dq, dk, dv, dkvHere, tmp;
  linearBackward(dout, *w.o, dconcat);
  // The additive bias and the causal mask are constants: the softmax's backward is unchanged.
  attentionBackward(t, dconcat, dq, dk, dv, maps);
  linearBackward(dq, *w.q, dx);
  linearBackward(dk, *w.k, dkvHere);
  linearBackward(dv, *w.v, tmp);
  dkvHere += tmp;
  if (dkv)
    *dkv += dkvHere;
  else
    dx += dkvHere;
}

void tapedSeq2SeqMlp(const Seq2SeqPass& p, const LayerWeights& L, const Mat& x, MlpSublayerTape& t,
                     Mat& out) {
  const Activation act = p.config.base.activation;
  linear(x, L.up, t.pre);
  Mat u = t.pre;
  if (p.config.gatedFfn) {  // T5DenseGatedActDense: act(wi_0 x) * wi_1 x
    linear(x, L.gate, t.gatePre);
    Mat g = t.gatePre;
    activate(g, act);
    u.array() *= g.array();
  } else {
    activate(u, act);
  }
  linear(u, L.down, out);
}

void seq2seqMlpBackward(const Seq2SeqPass& p, const LayerWeights& L, const MlpSublayerTape& t,
                        const Mat& dout, Mat& dx) {
  const Activation act = p.config.base.activation;
  Mat du;
  linearBackward(dout, L.down, du);
  if (!p.config.gatedFfn) {
    activationBackward(t.pre, act, du);
    linearBackward(du, L.up, dx);
    return;
  }
  // d(a * b) = da * b + a * db with a = act(gate x), b = up x.
  Mat g = t.gatePre, dGate, tmp;
  activate(g, act);
  const Mat dUp = du.cwiseProduct(g);
  dGate = du.cwiseProduct(t.pre);
  activationBackward(t.gatePre, act, dGate);
  linearBackward(dUp, L.up, dx);
  linearBackward(dGate, L.gate, tmp);
  dx += tmp;
}

}  // namespace attn::models
