// BERT (Devlin et al. 2019) and RoBERTa: token + position + token type
// embeddings under a LayerNorm, post-LayerNorm blocks (attention, residual,
// LayerNorm; MLP, residual, LayerNorm; Vaswani et al. 2017, figure 1),
// bidirectional attention, and the masked-LM head when the checkpoint has one.
#include <cmath>

#include "attn/models/families/families.h"

namespace attn::models {
namespace {

void bertEmbed(ForwardPass& f, Mat& h) {
  const ModelConfig& c = f.config;
  const ModelWeights& w = f.weights;
  const Encoding& enc = f.enc;
  tokenEmbeddings(f, h);
  int pos = c.positionOffset;
  for (int i = 0; i < f.tokens(); ++i) {
    int p = i;
    if (c.positionOffset > 0)  // RoBERTa: create_position_ids_from_input_ids
      p = enc.ids[static_cast<size_t>(i)] == c.padTokenId ? c.padTokenId : pos++;
    h.row(i) += w.positionEmbedding.mat().row(p);
    if (!w.typeEmbedding.empty())
      h.row(i) += w.typeEmbedding.mat().row(enc.typeIds.empty() ? 0 : enc.typeIds[static_cast<size_t>(i)]);
  }
  Mat e;
  layerNorm(h, w.embeddingNorm, c.normEps, e);
  h = std::move(e);
}

void bertLayer(ForwardPass& f, int l, Mat& h, bool store, AttentionResult& res) {
  const ModelConfig& c = f.config;
  const LayerWeights& L = f.layer(l);
  linear(h, L.q, f.q);
  linear(h, L.k, f.k);
  linear(h, L.v, f.v);
  selfAttention(f, l, 1.0f / std::sqrt(static_cast<float>(c.headDim)), store, res);
  f.o += h;
  layerNorm(f.o, L.attnNorm, c.normEps, f.a);  // a: the attention block's output
  mlp(f, L, f.a, f.o);
  mlpOutputHook(f, l, f.o);
  f.o += f.a;
  layerNorm(f.o, L.mlpNorm, c.normEps, h);
}

void bertOutput(ForwardPass& f, Mat& h, ModelRun& run) {
  if (f.opt.keepHiddenStates) run.hiddenStates.push_back(h);
  run.finalHidden = std::move(h);
  maskedLmOutputs(f, run);
}

}  // namespace

FamilyGraph bertGraph() { return {bertEmbed, bertLayer, bertOutput}; }

}  // namespace attn::models
