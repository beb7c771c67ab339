#pragma once
// A causal model's key/value cache as it grows token by token (the
// segment-memory view on a real decoder). Generating token t, an incremental
// decoder keeps the keys and values of tokens 0..t-1 (the cache) and computes
// only q_t, k_t, v_t; q_t attends over [cached keys; k_t]. Those weights are row
// t of the layer's causal map, so the view reads them from a full run.
#include <cstdint>
#include <string>
#include <vector>

#include "attn/engine.h"
#include "attn/status.h"
#include "attn/variants/variant_run.h"

namespace attn::variants {

struct KvCacheShape {
  int layers = 0, kvHeads = 0, headDim = 0;  // grouped-query models cache kvHeads, not heads
  int bytesPerValue = 2;                     // fp16/bf16 caches, as decoders keep them
};

struct KvCacheView {
  int step = 0;  // t: the token being generated; the cache holds tokens 0..t-1
  /// [0] token t over t cached keys (memory columns) and its own key: row t, 1 x (t+1);
  /// [1] the layer's map as far as it has been generated: rows 0..t (later rows are zero).
  std::vector<VariantMap> maps;
  /// Per head, for query rows 0..t: the weight on cached keys (every key but its own).
  std::vector<std::vector<double>> cachedWeight;
  int64_t cacheBytes = 0;  // keys and values of tokens 0..t in every layer, once t is cached
};

/// The cache view of `head` at step t from one layer's result. Errors when the
/// layer is not causal (a key after its query has weight: an encoder such as
/// BERT has no cache to grow), or head/step are out of range. `labels`: the
/// tokens as the views show them (empty: the layer's key tokens).
Result<KvCacheView> kvCacheView(const AttentionResult& layer, int head, int step, const KvCacheShape& shape,
                                std::vector<std::string> labels = {});

}  // namespace attn::variants
