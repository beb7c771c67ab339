#pragma once
// One kind of an encoder–decoder run's attention (encoder self-attention, decoder
// self-attention or cross-attention) as the weights of a loaded file, so the explorer's own
// views — heatmap, head grid, metrics, row and column, compare, export — draw it as they draw a
// file's precomputed weights ([layer][head], the query tokens as rows). Decoder
// self-attention carries its causal mask, so the cells a step could not see are marked. When the
// run kept every head's q, k, v they come along (with T5's position bias and whether the logits
// were scaled), so the main window's step-through walks the head's real computation.
#include <QString>
#include <memory>
#include <vector>

#include "attn/engine.h"
#include "attn/io/input_file.h"

namespace attn::ui {

/// `layers` (one AttentionResult per layer, every head's weights) as a LoadedInput named
/// `name` (shown in titles; no '/' so that it is not read as a path). `causal`: the rows
/// are decoder steps over their own earlier tokens (a lower-triangular mask is attached).
/// `scaledScores`: the logits were q . k / sqrt(d_k) (BART, Marian) or q . k (T5).
/// Null when `layers` holds no weights.
std::shared_ptr<const attn::LoadedInput> attentionKindAsInput(
    const std::vector<attn::AttentionResult>& layers, bool causal, const QString& name,
    bool scaledScores = true);

}  // namespace attn::ui
