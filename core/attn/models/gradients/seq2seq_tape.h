#pragma once
// The pieces of an encoder-decoder block (families/bart.cpp, families/t5.cpp) run forward
// with a tape and backward to their input (seq2seq_sublayers.cpp), and the whole taped pass
// from both stacks' input embeddings to one logit (seq2seq_backward.cpp). Every sublayer is
// a residual around attention or an MLP: post-LN (BART, Marian) h = N(h + F(h)), so
// ds = N'(dh) and dh = ds + F'(ds); pre-norm (mBART with LayerNorm, T5 with RMSNorm)
// h = h + F(N(h)), so dh = dh + N'(F'(dh)).
#include <vector>

#include "attn/models/gradients/backward_ops.h"
#include "attn/models/seq2seq/seq2seq_config.h"
#include "attn/models/seq2seq/seq2seq_weights.h"

namespace attn::models {

/// One forced-decoding pass: the model, the logit read, and what does not depend on the
/// embeddings (T5's relative position bias per head: encoder [Ns, Ns], decoder [Nt, Nt]).
struct Seq2SeqPass {
  const Seq2SeqConfig& config;
  const Seq2SeqWeights& weights;
  int target = 0, position = 0;
  std::vector<Mat> encoderBias, decoderBias;
  bool t5() const { return config.family == Seq2SeqFamily::T5; }
  bool preNorm() const { return t5() || config.preNorm; }
};

/// A residual sublayer's norm tape and, pre-norm, the normalized input F read.
struct SublayerTape {
  NormTape norm;
  Mat x;
};
struct AttentionSublayerTape {
  SublayerTape res;
  AttentionTape attn;
};
struct MlpSublayerTape {
  SublayerTape res;
  Mat pre, gatePre;  // up (T5 v1.1: wi_1) and gate (wi_0) pre-activations
};
struct Seq2SeqLayerTape {
  AttentionSublayerTape self, cross;  // cross: decoder layers only
  MlpSublayerTape mlp;
};

/// q, k, v, o of one attention (self_attn / encoder_attn).
struct AttentionWeights {
  const LinearWeight *q, *k, *v, *o;
};

/// The family's norm (T5: RMSNorm, else LayerNorm), taped, and its backward.
void seq2seqNorm(const Seq2SeqPass& p, const ConstMatRef& x, const NormWeight& n, Mat& y, NormTape& t);
void seq2seqNormBackward(const Seq2SeqPass& p, const ConstMatRef& dy, const NormWeight& n, const NormTape& t,
                         Mat& dx);

/// What the sublayer reads: h (post-LN) or N(h) (pre-norm, kept in t.x).
const Mat& residualInput(const Seq2SeqPass& p, const Mat& h, const NormWeight& n, SublayerTape& t);
/// h = N(h + out) (post-LN) or h += out (pre-norm); out is overwritten.
void residualOutput(const Seq2SeqPass& p, Mat& h, Mat& out, const NormWeight& n, SublayerTape& t);
/// dh: d(the sublayer's output h) in, d(out) = d(the residual's h) out (post-LN: N'(dh)).
void residualOutputBackward(const Seq2SeqPass& p, Mat& dh, const NormWeight& n, const SublayerTape& t);
/// dh += the input path's gradient from dx = d(what the sublayer read).
void residualInputBackward(const Seq2SeqPass& p, Mat& dh, const Mat& dx, const NormWeight& n,
                           const SublayerTape& t);

/// out = W_O attention(x W_Q, kv W_K, kv W_V) with the family's scale (T5: 1, else
/// head_dim^-0.5), causal from key 0 when `causal`, plus `bias` per head when not null.
void tapedSeq2SeqAttention(const Seq2SeqPass& p, const AttentionWeights& w, const Mat& x, const Mat& kv,
                           int heads, bool causal, const std::vector<Mat>* bias, AttentionTape& t, Mat& out);
/// dx = d(x) from dout; the keys' and values' gradient goes to dkv (cross-attention: the
/// encoder output) or, when dkv is null, into dx too (self-attention). Per head alpha *
/// dLogit/d(alpha) into maps when not null.
void seq2seqAttentionBackward(const AttentionWeights& w, const AttentionTape& t, const Mat& dout, Mat& dx,
                              Mat* dkv, std::vector<Mat>* maps);

/// out = down(act(up x)) or down(act(gate x) * up x) (T5 v1.1's gated MLP).
void tapedSeq2SeqMlp(const Seq2SeqPass& p, const LayerWeights& L, const Mat& x, MlpSublayerTape& t, Mat& out);
void seq2seqMlpBackward(const Seq2SeqPass& p, const LayerWeights& L, const MlpSublayerTape& t,
                        const Mat& dout, Mat& dx);

/// The logit of p.target at decoder row p.position on inputs_embeds xs [Ns, d] and xt [Nt, d];
/// with dxs / dxt their gradients, with maps (encoder, decoder self, cross, layer-major per
/// head) alpha * dLogit/d(alpha). row (not null): the decoder's output at the row as the
/// lm_head reads it (after the final norm and lmHeadScale).
struct Seq2SeqLogitGrads {
  Mat dSource, dTarget;
  std::vector<Mat>*encoder = nullptr, *decoder = nullptr, *cross = nullptr;
};
float seq2seqLogitGradient(const Seq2SeqPass& p, const Mat& xs, const Mat& xt, Seq2SeqLogitGrads* grads,
                           Eigen::RowVectorXf* row = nullptr);

}  // namespace attn::models
