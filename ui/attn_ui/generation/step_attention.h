#pragma once
// What the Generate dock draws for one written token, computed from a generation's maps
// (Qt-free, so the numbers are checked against the core's maps directly).
#include <vector>

#include "attn/models/generation/causal_generation.h"
#include "attn/tensor.h"

namespace attn::ui {

/// The attention with which the token at `position` (>= 1) was written: the step that wrote
/// it read the token before, so it is query row position - 1 of layer `layer`, over keys
/// 0 .. position - 1; one head, or the mean of the layer's heads when head < 0. Empty when
/// the layer, head or position is outside the generation.
attn::Vec writtenTokenAttention(const attn::models::CausalGeneration& g, int layer, int head, int position);

struct RankedKey {
  int key = 0;
  float weight = 0;
};
/// The `k` largest weights, largest first (ties: the earlier key first).
std::vector<RankedKey> topKeys(const attn::Vec& weights, int k);

/// The generation's ids and tokens as an encoding the explorer can run without re-tokenizing
/// (decoding and encoding again can change the tokens); the prompt's own encoding gives the
/// special-token marks of the prompt part.
attn::models::Encoding generatedEncoding(const attn::models::CausalGeneration& g,
                                         const attn::models::Encoding& prompt);

}  // namespace attn::ui
