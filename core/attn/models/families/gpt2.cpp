// GPT-2 (Radford et al. 2019, "Language Models are Unsupervised Multitask
// Learners", section 2.3): learned absolute positions, pre-LayerNorm blocks
// (ln_1, attention, residual; ln_2, MLP, residual), the fused c_attn
// projection, gelu_new, a final ln_f and the tied lm_head.
#include <cmath>

#include "attn/models/families/families.h"

namespace attn::models {
namespace {

void gpt2Embed(ForwardPass& f, Mat& h) {
  tokenEmbeddings(f, h);
  h += f.weights.positionEmbedding.mat().topRows(f.tokens());
}

void gpt2Layer(ForwardPass& f, int l, Mat& h, bool store, AttentionResult& res) {
  const ModelConfig& c = f.config;
  const LayerWeights& L = f.layer(l);
  const int64_t d = c.dModel;
  float scale = 1.0f / std::sqrt(static_cast<float>(c.headDim));
  if (c.scaleByInverseLayer) scale /= static_cast<float>(l + 1);  // scale_attn_by_inverse_layer_idx
  layerNorm(h, L.attnNorm, c.normEps, f.a);
  linear(f.a, L.qkv, f.qkv);
  copyColumns(f.qkv, 0, d, f.q);
  copyColumns(f.qkv, d, d, f.k);
  copyColumns(f.qkv, 2 * d, d, f.v);
  selfAttention(f, l, scale, store, res);
  addResidual(h, f.o);
  layerNorm(h, L.mlpNorm, c.normEps, f.a);
  mlp(f, L, f.a, f.o);
  mlpOutputHook(f, l, f.o);
  addResidual(h, f.o);
}

void gpt2Output(ForwardPass& f, Mat& h, ModelRun& run) {
  if (f.opt.keepHiddenStates) run.lastResidual = h;
  layerNorm(h, f.weights.finalNorm, f.config.normEps, run.finalHidden);
  causalLmOutputs(f, run);
}

}  // namespace

FamilyGraph gpt2Graph() { return {gpt2Embed, gpt2Layer, gpt2Output}; }

}  // namespace attn::models
