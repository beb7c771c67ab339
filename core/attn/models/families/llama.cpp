// The Llama family (Touvron et al. 2023; Llama 2/3, TinyLlama, SmolLM, Qwen2,
// Mistral): no position embedding but rotary positions on q and k (Su et al.
// 2021, RoFormer, eq. 34), pre-RMSNorm blocks, grouped-query attention, the
// SwiGLU MLP, a final RMSNorm and the lm_head.
#include <cmath>

#include "attn/models/families/families.h"

namespace attn::models {
namespace {

void llamaEmbed(ForwardPass& f, Mat& h) {
  const ModelConfig& c = f.config;
  tokenEmbeddings(f, h);
  f.rope = ropeTable(f.tokens(), c.headDim, c.ropeTheta, c.ropeScaling);
}

void llamaLayer(ForwardPass& f, int l, Mat& h, bool store, AttentionResult& res) {
  const ModelConfig& c = f.config;
  const LayerWeights& L = f.layer(l);
  rmsNorm(h, L.attnNorm, c.normEps, f.a);
  linear(f.a, L.q, f.q);
  linear(f.a, L.k, f.k);
  linear(f.a, L.v, f.v);
  if (c.qkRowsInterleaved) {
    deinterleaveHeads(f.q, c.headDim);
    deinterleaveHeads(f.k, c.headDim);
  }
  applyRope(f.q, c.headDim, f.rope);
  applyRope(f.k, c.headDim, f.rope);
  selfAttention(f, l, 1.0f / std::sqrt(static_cast<float>(c.headDim)), store, res);
  addResidual(h, f.o);
  rmsNorm(h, L.mlpNorm, c.normEps, f.a);
  gatedMlp(f, L, f.a, f.o);
  mlpOutputHook(f, l, f.o);
  addResidual(h, f.o);
}

void llamaOutput(ForwardPass& f, Mat& h, ModelRun& run) {
  if (f.opt.keepHiddenStates) run.lastResidual = h;
  rmsNorm(h, f.weights.finalNorm, f.config.normEps, run.finalHidden);
  causalLmOutputs(f, run);
}

}  // namespace

FamilyGraph llamaGraph() { return {llamaEmbed, llamaLayer, llamaOutput}; }

}  // namespace attn::models
