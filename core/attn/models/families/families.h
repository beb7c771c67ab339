#pragma once
// One file per model family, as the paper draws its block (llama.cpp's
// src/models/ has the same shape): how tokens become the first hidden state,
// one transformer layer, and what follows the last layer. Each is built from
// the shared blocks of transformer_layers.h; transformerForward picks the
// family's graph and runs it.
#include "attn/models/transformer_layers.h"

namespace attn::models {

struct FamilyGraph {
  /// h [n, d]: the input of layer 0 (and whatever the family's layers read from
  /// the positions, e.g. RoPE's table).
  void (*embed)(ForwardPass& f, Mat& h);
  /// h = layer l (h); with `store`, `res` keeps the layer's attention heads.
  void (*layer)(ForwardPass& f, int l, Mat& h, bool store, AttentionResult& res);
  /// From the last layer's h: run.finalHidden, the final hidden state (when kept) and
  /// the family's output head.
  void (*output)(ForwardPass& f, Mat& h, ModelRun& run);
};

FamilyGraph gpt2Graph();
FamilyGraph bertGraph();
FamilyGraph llamaGraph();
FamilyGraph vitGraph();
FamilyGraph dinov2Graph();
FamilyGraph clipVisionGraph();

/// The graph of config.family.
FamilyGraph familyGraph(Family family);
/// The graph of the config's family and, for vision models, its architecture.
FamilyGraph familyGraph(const ModelConfig& config);

/// The patches of the pixel tensor [C, H, W] as rows [grid*grid, C*P*P], each in the
/// Conv2d kernel's (c, ky, kx) order, the grid row-major (flatten(2) of the conv output).
Mat unfoldPatches(const vision::PixelTensor& px, int P);

}  // namespace attn::models
