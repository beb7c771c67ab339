// ViT (Dosovitskiy et al. 2021, "An Image is Worth 16x16 Words", eq. 1-4) and DeiT
// (Touvron et al. 2021, with the distillation token): the image cut into P x P
// patches, each projected by the patch-embedding convolution (stride P, so a GEMM
// on the unfolded patches), [CLS] (and the distillation token) prepended, learned
// positions added; pre-LayerNorm blocks (layernorm_before, attention, residual;
// layernorm_after, MLP, residual); the final layernorm; the classifier on [CLS]
// (DeiT with teacher: the mean of the [CLS] and distillation heads).
#include <cmath>

#include "attn/models/families/families.h"

namespace attn::models {

Mat unfoldPatches(const vision::PixelTensor& px, int P) {
  const int rows = px.height / P, cols = px.width / P, C = px.channels;
  Mat out(static_cast<Eigen::Index>(rows) * cols, static_cast<Eigen::Index>(C) * P * P);
  for (int r = 0; r < rows; ++r)
    for (int q = 0; q < cols; ++q) {
      float* dst = &out(static_cast<Eigen::Index>(r) * cols + q, 0);
      for (int c = 0; c < C; ++c)
        for (int ky = 0; ky < P; ++ky)
          for (int kx = 0; kx < P; ++kx) *dst++ = px.at(c, r * P + ky, q * P + kx);
    }
  return out;
}

namespace {

void vitEmbed(ForwardPass& f, Mat& h) {
  const ModelConfig& c = f.config;
  const ModelWeights& w = f.weights;
  const int prefix = c.prefixTokens;
  Mat patches;
  linear(unfoldPatches(*f.pixels, c.patchSize), w.patchEmbedding, patches);
  h.resize(prefix + patches.rows(), c.dModel);
  h.row(0) = w.clsToken.row();
  if (prefix > 1) h.row(1) = w.distillationToken.row();
  h.bottomRows(patches.rows()) = patches;
  h += w.positionEmbedding.mat().topRows(h.rows());
}

void vitLayer(ForwardPass& f, int l, Mat& h, bool store, AttentionResult& res) {
  const ModelConfig& c = f.config;
  const LayerWeights& L = f.layer(l);
  layerNorm(h, L.attnNorm, c.normEps, f.a);  // layernorm_before
  linear(f.a, L.q, f.q);
  linear(f.a, L.k, f.k);
  linear(f.a, L.v, f.v);
  selfAttention(f, l, 1.0f / std::sqrt(static_cast<float>(c.headDim)), store, res);
  addResidual(h, f.o);
  layerNorm(h, L.mlpNorm, c.normEps, f.a);  // layernorm_after
  mlp(f, L, f.a, f.o);
  addResidual(h, f.o);
}

void vitOutput(ForwardPass& f, Mat& h, ModelRun& run) {
  const ModelWeights& w = f.weights;
  if (f.opt.keepHiddenStates) run.hiddenStates.push_back(h);  // ViTEncoder's last state: before the layernorm
  layerNorm(h, w.finalNorm, f.config.normEps, run.finalHidden);
  if (w.classifier.w.empty()) return;
  linear(run.finalHidden.topRows(1), w.classifier, run.labelLogits);
  if (!w.distillationClassifier.w.empty()) {
    Mat distilled;
    linear(run.finalHidden.middleRows(1, 1), w.distillationClassifier, distilled);
    run.labelLogits = (run.labelLogits + distilled) / 2;
  }
  run.topLabels = softmaxTopK(run.labelLogits.data(), static_cast<int>(run.labelLogits.cols()), 5);
  for (auto& t : run.topLabels) t.token = f.config.labels[static_cast<size_t>(t.id)];
}

}  // namespace

FamilyGraph vitGraph() { return {vitEmbed, vitLayer, vitOutput}; }

}  // namespace attn::models
