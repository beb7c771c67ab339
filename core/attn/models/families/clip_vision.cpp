// CLIP's image tower (Radford et al. 2021, "Learning Transferable Visual Models From Natural
// Language Supervision"), as transformers' CLIPVisionTransformer: the patch convolution
// without bias, the class embedding, learned positions, a LayerNorm on the embeddings
// (pre_layrnorm), pre-LayerNorm blocks with quick GELU (x sigmoid(1.702 x)); the last
// hidden state is the encoder's output, and post_layernorm is applied to the pooled [CLS].
#include <cmath>

#include "attn/models/families/families.h"

namespace attn::models {
namespace {

void clipVisionEmbed(ForwardPass& f, Mat& h) {
  const ModelConfig& c = f.config;
  const ModelWeights& w = f.weights;
  Mat patches;
  linear(unfoldPatches(*f.pixels, c.patchSize), w.patchEmbedding, patches);
  Mat e(1 + patches.rows(), c.dModel);
  e.row(0) = w.clsToken.row();
  e.bottomRows(patches.rows()) = patches;
  e += w.positionEmbedding.mat().topRows(e.rows());
  layerNorm(e, w.preNorm, c.normEps, h);  // pre_layrnorm
}

void clipVisionLayer(ForwardPass& f, int l, Mat& h, bool store, AttentionResult& res) {
  const ModelConfig& c = f.config;
  const LayerWeights& L = f.layer(l);
  layerNorm(h, L.attnNorm, c.normEps, f.a);  // layer_norm1
  linear(f.a, L.q, f.q);
  linear(f.a, L.k, f.k);
  linear(f.a, L.v, f.v);
  selfAttention(f, l, 1.0f / std::sqrt(static_cast<float>(c.headDim)), store, res);
  addResidual(h, f.o);
  layerNorm(h, L.mlpNorm, c.normEps, f.a);  // layer_norm2
  mlp(f, L, f.a, f.o);                      // fc1, quick_gelu, fc2
  addResidual(h, f.o);
}

void clipVisionOutput(ForwardPass& f, Mat& h, ModelRun& run) {
  if (f.opt.keepHiddenStates) run.hiddenStates.push_back(h);
  run.finalHidden = h;  // last_hidden_state: no norm after the encoder
  layerNorm(h.topRows(1), f.weights.finalNorm, f.config.normEps,
            run.pooledOutput);  // post_layernorm on [CLS]
}

}  // namespace

FamilyGraph clipVisionGraph() { return {clipVisionEmbed, clipVisionLayer, clipVisionOutput}; }

}  // namespace attn::models
