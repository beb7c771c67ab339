// GPT-2's block (Radford et al. 2019; families/gpt2.cpp) run forward with a tape and
// backward to the input embeddings: h1 = h + W_O attn(LN_1(h)), h2 = h1 + MLP(LN_2(h1)),
// so dh1 = dh2 + LN_2'(MLP'(dh2)) and dh = dh1 + LN_1'(attn'(W_O' dh1)).
#include <cmath>

#include "attn/models/gradients/backward_ops.h"
#include "attn/models/gradients/logit_gradient.h"

namespace attn::models {
namespace {

struct Gpt2LayerTape {
  NormTape ln1, ln2;
  AttentionTape attn;
  Mat pre;  // the MLP's pre-activations [n, intermediate]
};

void gpt2TapedLayer(const LogitGradientPass& g, int l, Mat& h, Gpt2LayerTape& t) {
  const ModelConfig& c = g.config;
  const LayerWeights& L = g.weights.layers[static_cast<size_t>(l)];
  const Eigen::Index d = c.dModel;
  Mat a, qkv, concat, o, u;
  layerNormTaped(h, L.attnNorm, c.normEps, a, t.ln1);
  linear(a, L.qkv, qkv);
  t.attn.q = qkv.leftCols(d);
  t.attn.k = qkv.middleCols(d, d);
  t.attn.v = qkv.rightCols(d);
  t.attn.heads = t.attn.kvHeads = c.heads;
  t.attn.headDim = c.headDim;
  t.attn.scale = 1.0f / std::sqrt(static_cast<float>(c.headDim));
  if (c.scaleByInverseLayer) t.attn.scale /= static_cast<float>(l + 1);
  attentionTaped(t.attn, g.keep, concat);
  linear(concat, L.o, o);
  h += o;
  layerNormTaped(h, L.mlpNorm, c.normEps, a, t.ln2);
  linear(a, L.up, t.pre);
  u = t.pre;
  activate(u, c.activation);
  linear(u, L.down, o);
  h += o;
}

/// dh: d/d(the layer's output) in, d/d(its input) out.
void gpt2LayerBackward(const LogitGradientPass& g, int l, const Gpt2LayerTape& t, Mat& dh,
                       std::vector<Mat>* heads) {
  const LayerWeights& L = g.weights.layers[static_cast<size_t>(l)];
  Mat du, da, dx, dconcat, dq, dk, dv;
  linearBackward(dh, L.down, du);
  activationBackward(t.pre, g.config.activation, du);
  linearBackward(du, L.up, da);
  layerNormBackward(da, L.mlpNorm, t.ln2, dx);
  dh += dx;
  linearBackward(dh, L.o, dconcat);
  attentionBackward(t.attn, dconcat, dq, dk, dv, heads);
  Mat dqkv(dq.rows(), dq.cols() + dk.cols() + dv.cols());
  dqkv << dq, dk, dv;
  linearBackward(dqkv, L.qkv, da);
  layerNormBackward(da, L.attnNorm, t.ln1, dx);
  dh += dx;
}

}  // namespace

float gpt2LogitGradient(const LogitGradientPass& g, const Mat& emb, Mat* dEmb, std::vector<Mat>* attnGrad) {
  const ModelConfig& c = g.config;
  const Eigen::Index n = emb.rows();
  Mat h = emb + g.weights.positionEmbedding.mat().topRows(n);
  std::vector<Gpt2LayerTape> tapes(static_cast<size_t>(c.layers));
  for (int l = 0; l < c.layers; ++l) gpt2TapedLayer(g, l, h, tapes[static_cast<size_t>(l)]);
  Mat dh;  // ln_f on the rows read only
  const float logit = causalReadout(g, h, dEmb ? &dh : nullptr, &layerNormTaped, &layerNormBackward);
  if (!dEmb) return logit;
  layersBackward(c, dh, attnGrad, [&g, &tapes](int l, Mat& d, std::vector<Mat>* heads) {
    gpt2LayerBackward(g, l, tapes[static_cast<size_t>(l)], d, heads);
  });
  *dEmb = std::move(dh);  // positions are added after emb: d(h0)/d(emb) is the identity
  return logit;
}

}  // namespace attn::models
