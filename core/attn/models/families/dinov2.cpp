// DINOv2 (Oquab et al. 2023, "DINOv2: Learning Robust Visual Features without Supervision"),
// as transformers' Dinov2Model and Dinov2WithRegistersModel (Darcet et al. 2024, "Vision
// Transformers Need Registers"): ViT's patch embedding and [CLS], the learned positions
// resized bicubically to the image's patch grid, register tokens (no position) after [CLS];
// pre-LayerNorm blocks whose attention and MLP outputs are scaled per channel before each
// residual (LayerScale, Touvron et al. 2021, "Going deeper with Image Transformers", eq. 4),
// the MLP either fc1-GELU-fc2 or SwiGLU (Shazeer 2020, eq. 6); the final layernorm.
#include <cmath>

#include "attn/models/families/families.h"
#include "attn/vision/positions/position_grid.h"

namespace attn::models {
namespace {

/// Dinov2Embeddings.interpolate_pos_encoding: [CLS]'s position kept, the patch table (a square
/// grid) resized to rows x cols with interpolate(size=(rows, cols), mode="bicubic",
/// align_corners=False), antialiased in the registers model; unchanged when the grids agree.
Mat dinov2Positions(const ModelConfig& c, const WeightTensor& table, int rows, int cols) {
  const auto t = table.mat();
  const int g = static_cast<int>(std::lround(std::sqrt(static_cast<double>(t.rows() - 1))));
  if (rows == g && cols == g) return t;
  Mat out(1 + static_cast<Eigen::Index>(rows) * cols, t.cols());
  out.row(0) = t.row(0);
  const auto kernel = c.registerTokens > 0 ? vision::CubicKernel::TorchAntialias : vision::CubicKernel::Torch;
  out.bottomRows(out.rows() - 1) =
      vision::interpolatePositionGrid(t.bottomRows(t.rows() - 1), g, g, rows, cols,
                                      static_cast<double>(g) / rows, static_cast<double>(g) / cols, kernel);
  return out;
}

void dinov2Embed(ForwardPass& f, Mat& h) {
  const ModelConfig& c = f.config;
  const ModelWeights& w = f.weights;
  const int P = c.patchSize, rows = f.pixels->height / P, cols = f.pixels->width / P;
  const int regs = c.registerTokens;
  Mat patches;
  linear(unfoldPatches(*f.pixels, P), w.patchEmbedding, patches);
  const Mat pos = dinov2Positions(c, w.positionEmbedding, rows, cols);
  h.resize(1 + regs + patches.rows(), c.dModel);
  h.row(0) = w.clsToken.row() + pos.row(0);
  if (regs > 0) h.middleRows(1, regs) = w.registerTokens.mat();  // added after the positions
  h.bottomRows(patches.rows()) = patches + pos.bottomRows(patches.rows());
}

void dinov2Layer(ForwardPass& f, int l, Mat& h, bool store, AttentionResult& res) {
  const ModelConfig& c = f.config;
  const LayerWeights& L = f.layer(l);
  layerNorm(h, L.attnNorm, c.normEps, f.a);  // norm1
  linear(f.a, L.q, f.q);
  linear(f.a, L.k, f.k);
  linear(f.a, L.v, f.v);
  selfAttention(f, l, 1.0f / std::sqrt(static_cast<float>(c.headDim)), store, res);
  f.o.array().rowwise() *= L.layerScale1.row().array();  // layer_scale1
  addResidual(h, f.o);
  layerNorm(h, L.mlpNorm, c.normEps, f.a);  // norm2
  if (c.swiglu)
    gatedMlp(f, L, f.a, f.o);  // weights_in split in two: silu(x1) * x2, then weights_out
  else
    mlp(f, L, f.a, f.o);
  f.o.array().rowwise() *= L.layerScale2.row().array();  // layer_scale2
  addResidual(h, f.o);
}

void dinov2Output(ForwardPass& f, Mat& h, ModelRun& run) {
  if (f.opt.keepHiddenStates)
    run.hiddenStates.push_back(h);  // Dinov2Encoder's last state: before the layernorm
  layerNorm(h, f.weights.finalNorm, f.config.normEps, run.finalHidden);
}

}  // namespace

FamilyGraph dinov2Graph() { return {dinov2Embed, dinov2Layer, dinov2Output}; }

}  // namespace attn::models
