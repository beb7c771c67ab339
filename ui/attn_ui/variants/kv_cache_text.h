#pragma once
// Words for the key/value cache view of the variants panel (segment memory on
// a causal model): the summary line and the step-through of one decode step.
#include <QString>

#include <vector>

#include "attn/models/model.h"
#include "attn/variants/kv_cache.h"
#include "attn_ui/variants/variant_walk_text.h"

namespace attn::ui {

/// "Layer 2, head 1, token 5 (“sat”): ..." with the cache's size for the whole model.
QString kvCacheSummary(const attn::variants::KvCacheView& view, int layer, int head, const QString& token,
                       const attn::models::ModelInfo& info);

/// One decode step, in four steps: what is cached, the scores, the weights, the memory.
std::vector<VariantStep> kvCacheSteps(const attn::variants::KvCacheView& view, int head, const QString& token,
                                      const attn::models::ModelInfo& info);

}  // namespace attn::ui
