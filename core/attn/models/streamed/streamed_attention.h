#pragma once
// Self-attention of a streamed forward (RunOptions::streamed): every head's
// measures and its output P V from one streamed analysis of the F32 q/k (a block
// of softmax rows at a time), or without measures the output alone from the
// tiled online-softmax kernel (Dao et al. 2022, alg. 1; masked tiles skipped);
// and the layer's q/k kept for recomputing maps. Nothing N x N.
#include <vector>

#include "attn/analysis/head_analysis.h"
#include "attn/analysis/layers.h"
#include "attn/models/streamed/qk_store.h"
#include "attn/models/transformer_layers.h"

namespace attn::models {

/// Where a streamed pass puts what it keeps.
struct StreamedOutputs {
  const Mask* mask = nullptr;  // the model's mask, bound to N x N; null: every key
  AnalysisOptions options;
  QkStore* store = nullptr;                   // null: the q/k are not kept
  std::vector<Analysis>* analyses = nullptr;  // one per layer, appended; null: no measures
  // A window of a longer text (RunOptions::windowLayers): the measures go here instead.
  std::vector<WindowedAnalysis>* windowed = nullptr;
  int windowStart = 0, firstRow = 0;
  RunningRollout* rollout = nullptr;  // with analyses: stepped by each layer; null: none
  Mat headSum;                        // the rollout's: a layer's sum of its heads' rows, reused
};

/// f.concat [N, H * hd] = the heads' outputs on f.q, f.k, f.v (GQA: head h reads KV head
/// h / (H / KV)); appends the layer's measures and stores its q/k (each where `f.streamed` asks).
void streamedAttention(ForwardPass& f, int layer, float scale);

}  // namespace attn::models
