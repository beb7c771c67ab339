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

/// The graph of config.family.
FamilyGraph familyGraph(Family family);

}  // namespace attn::models
