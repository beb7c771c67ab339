#pragma once
// A pretrained model's run as the explorer's views read it: token labels a reader can
// follow, the weights as [layer][head], and a streamed run's layers as results without weights.
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

#include "attn/engine.h"
#include "attn/engine/precomputed.h"
#include "attn/models/model.h"

namespace attn::ui {

/// The text each id stands for, word boundaries shown as ␣, newlines ↵ and tabs ⇥.
QStringList modelTokenLabels(const attn::models::HfTokenizer& tokenizer,
                             const attn::models::Encoding& encoding);
/// The run's weights as [L][H], for the head grid and the layered views.
std::shared_ptr<attn::PrecomputedAttention> layeredWeights(const attn::models::ModelRun& run);
/// A streamed run's layers as results without weights (entropy, tokens, mask); null when the
/// run kept no q/k.
std::shared_ptr<const std::vector<attn::AttentionResult>> streamedLayerResults(
    const attn::models::ModelRun& run);

}  // namespace attn::ui
