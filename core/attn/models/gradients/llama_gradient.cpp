// The Llama family's block (families/llama.cpp: RMSNorm, RoPE, grouped-query attention,
// SwiGLU) run forward with a tape and backward to the input embeddings.
#include <cmath>

#include "attn/models/gradients/backward_ops.h"
#include "attn/models/gradients/logit_gradient.h"

namespace attn::models {
namespace {

struct LlamaLayerTape {
  NormTape norm1, norm2;
  AttentionTape attn;
  Mat gatePre, up;  // SwiGLU's act(gate) * up: both factors' inputs [n, intermediate]
};

/// The inverse of deinterleaveHeads (a permutation of each head's columns): its transpose.
void interleaveHeads(Mat& x, int headDim) {
  const int half = headDim / 2, heads = static_cast<int>(x.cols()) / headDim;
  std::vector<float> tmp(static_cast<size_t>(headDim));
  for (Eigen::Index p = 0; p < x.rows(); ++p)
    for (int h = 0; h < heads; ++h) {
      float* v = &x(p, h * headDim);
      for (int i = 0; i < half; ++i) {
        tmp[static_cast<size_t>(2 * i)] = v[i];
        tmp[static_cast<size_t>(2 * i + 1)] = v[half + i];
      }
      std::copy(tmp.begin(), tmp.end(), v);
    }
}

void llamaTapedLayer(const LogitGradientPass& g, const RopeTable& rope, int l, Mat& h, LlamaLayerTape& t) {
  const ModelConfig& c = g.config;
  const LayerWeights& L = g.weights.layers[static_cast<size_t>(l)];
  Mat a, concat, o, u;
  rmsNormTaped(h, L.attnNorm, c.normEps, a, t.norm1);
  linear(a, L.q, t.attn.q);
  linear(a, L.k, t.attn.k);
  linear(a, L.v, t.attn.v);
  if (c.qkRowsInterleaved) {
    deinterleaveHeads(t.attn.q, c.headDim);
    deinterleaveHeads(t.attn.k, c.headDim);
  }
  applyRope(t.attn.q, c.headDim, rope);
  applyRope(t.attn.k, c.headDim, rope);
  t.attn.heads = c.heads;
  t.attn.kvHeads = c.kvHeads;
  t.attn.headDim = c.headDim;
  t.attn.scale = 1.0f / std::sqrt(static_cast<float>(c.headDim));
  attentionTaped(t.attn, g.keep, concat);
  linear(concat, L.o, o);
  h += o;
  rmsNormTaped(h, L.mlpNorm, c.normEps, a, t.norm2);
  linear(a, L.gate, t.gatePre);
  linear(a, L.up, t.up);
  u = t.gatePre;
  activate(u, c.activation);
  u.array() *= t.up.array();
  linear(u, L.down, o);
  h += o;
}

void llamaLayerBackward(const LogitGradientPass& g, const RopeTable& rope, int l, const LlamaLayerTape& t,
                        Mat& dh, std::vector<Mat>* heads) {
  const ModelConfig& c = g.config;
  const LayerWeights& L = g.weights.layers[static_cast<size_t>(l)];
  Mat du, act, dUp, dGate, da, da2, dx, dconcat, dq, dk, dv;
  linearBackward(dh, L.down, du);
  act = t.gatePre;
  activate(act, c.activation);
  dUp = du.cwiseProduct(act);     // d/d(up) = du * act(gate)
  dGate = du.cwiseProduct(t.up);  // d/d(act(gate)) = du * up
  activationBackward(t.gatePre, c.activation, dGate);
  linearBackward(dUp, L.up, da);
  linearBackward(dGate, L.gate, da2);
  da += da2;
  rmsNormBackward(da, L.mlpNorm, t.norm2, dx);
  dh += dx;
  linearBackward(dh, L.o, dconcat);
  attentionBackward(t.attn, dconcat, dq, dk, dv, heads);
  ropeBackward(dq, c.headDim, rope);
  ropeBackward(dk, c.headDim, rope);
  if (c.qkRowsInterleaved) {
    interleaveHeads(dq, c.headDim);
    interleaveHeads(dk, c.headDim);
  }
  linearBackward(dq, L.q, da);
  linearBackward(dk, L.k, da2);
  da += da2;
  linearBackward(dv, L.v, da2);
  da += da2;
  rmsNormBackward(da, L.attnNorm, t.norm1, dx);
  dh += dx;
}

}  // namespace

float llamaLogitGradient(const LogitGradientPass& g, const Mat& emb, Mat* dEmb, std::vector<Mat>* attnGrad) {
  const ModelConfig& c = g.config;
  const Eigen::Index n = emb.rows();
  const RopeTable rope = ropeTable(static_cast<int>(n), c.headDim, c.ropeTheta, c.ropeScaling);
  Mat h = emb;
  std::vector<LlamaLayerTape> tapes(static_cast<size_t>(c.layers));
  for (int l = 0; l < c.layers; ++l) llamaTapedLayer(g, rope, l, h, tapes[static_cast<size_t>(l)]);
  Mat dh;
  const float logit = causalReadout(g, h, dEmb ? &dh : nullptr, &rmsNormTaped, &rmsNormBackward);
  if (!dEmb) return logit;
  layersBackward(c, dh, attnGrad, [&g, &tapes, &rope](int l, Mat& d, std::vector<Mat>* heads) {
    llamaLayerBackward(g, rope, l, tapes[static_cast<size_t>(l)], d, heads);
  });
  *dEmb = std::move(dh);
  return logit;
}

}  // namespace attn::models
