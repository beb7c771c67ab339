#pragma once
// Many patched runs of one causal model as one stacked matrix. A patch at (layer l,
// position p) of the residual stream or an MLP output changes only rows >= p from layer
// l on (causal attention: row i reads keys <= i), so the rows before p keep the corrupt
// run's values and, at every layer, its keys and values. Each patched run is therefore
// a segment of rows p..N-1 whose attention reads [the corrupt run's cached K/V of rows
// < p ; its own K/V] (the KV cache of incremental decoding, Ott et al. 2019), and every
// row-wise part of a layer (norms, projections, MLP) runs once for all segments: one
// product per weight instead of one per patch. The family's own layer code runs the
// stack; only its attention (selfAttention) is per segment, here.
#include <vector>

#include "attn/models/families/families.h"
#include "attn/models/transformer_layers.h"

namespace attn::models {

/// One patched run's rows in the stack: positions first..N-1 at stack rows row0...
struct PatchSegment {
  int first = 0;
  int row0 = 0;
  int headLayer = -1;  // a head patch: at this layer, head `head`'s output is the clean run's
  int head = -1;
};

/// What ForwardPass::stacked points to while a stack runs.
struct StackedPatches {
  std::vector<PatchSegment> segments;
  int n = 0;                                 // the sequence length
  const std::vector<Mat>* keys = nullptr;    // the corrupt run's per layer keys (after RoPE) [n, KV*hd]
  const std::vector<Mat>* values = nullptr;  // and values
  const std::vector<Mat>* heads = nullptr;   // the clean run's per layer head outputs [n, H*hd]
};

/// selfAttention's heads for a stack (f.stacked): f.concat [rows, H*hd] from f.q, f.k, f.v
/// [rows, ...], each segment's queries against its keys under the pass's mask f.keep.
void stackedAttention(ForwardPass& f, int l, float scale);

/// Runs layers start.. of the pass's family on the stack `h` (segments in `sp`, f.rope
/// the full sequence's table or empty) and returns each segment's last row after the
/// final norm [segments, d].
Mat runStacked(ForwardPass& f, const FamilyGraph& graph, StackedPatches& sp, int start, Mat h);

}  // namespace attn::models
