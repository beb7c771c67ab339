#pragma once
// The quantization effect as maps the model views draw (core models/quantization/
// quantization_effect.h): every head's attention weights with llama.cpp's quantized products
// minus those at full precision (the dequantized weights on f32 activations), signed.
#include <QString>
#include <memory>

#include "attn/models/quantization/quantization_effect.h"

namespace attn::ui {

/// `base` with every head's weights replaced by quantized − full precision of `effect` (a run of
/// the same encoding; the entropy stays the weights'); null when the shapes differ.
std::shared_ptr<const attn::models::ModelRun> quantizationEffectRun(
    const std::shared_ptr<const attn::models::ModelRun>& base,
    const attn::models::QuantizationEffect& effect);

/// The line shown over the maps: what was compared, the largest |Δ| (which head) and, for a
/// causal model, the next token's KL.
QString quantizationEffectNote(const attn::models::QuantizationEffect& effect);

}  // namespace attn::ui
