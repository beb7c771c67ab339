#pragma once
// The quantization's effect on the maps of a GGUF model: one encoding run twice, once with
// llama.cpp's arithmetic (activations rounded to 8 bits per block against the quantized
// weights: RunOptions::quantizedDot, gguf/quantized_dot.h, gguf/kquant_dot.h) and once at full
// precision (the same weights dequantized, applied in f32 to float activations). The weights
// are the same in both: what differs is the rounding of the activations inside each product.
#include <string>
#include <vector>

#include "attn/models/experiments/head_experiments.h"
#include "attn/models/model.h"
#include "attn/status.h"

namespace attn::models {

struct QuantizationEffect {
  ModelRun quantized;      // RunOptions::quantizedDot on (the default, as llama.cpp)
  ModelRun fullPrecision;  // off: the dequantized weights on f32 activations
  /// compareRuns(fullPrecision, quantized): per head max and mean |quantized − full precision|
  /// of the attention weights; causal models: KL(full precision ‖ quantized) of the next-token
  /// distribution after the last real token, and both top 5.
  RunComparison comparison;
  std::vector<std::string> types;  // the weight types whose products were quantized ("Q4_K", "Q6_K")
  /// The head with the largest |Δ| (layer counted from 0 over the model, not the kept layers).
  int largestLayer = 0, largestHead = 0;
  float largestChange = 0;
};

/// Refuses a model none of whose products run on quantized activations (a Hugging Face folder,
/// an F32/F16 GGUF file, or one of types AttnScope decodes to f32 panels such as Q4_0): both
/// runs would be the same. The message names the model's file and its weights.
Status checkQuantizationEffect(const ModelInfo& info);

/// Runs `encoding` both ways with `options` (its quantizedDot ignored; causal models keep
/// their full logits for the KL; streamed runs are refused: they keep no maps) and compares.
Result<QuantizationEffect> quantizationEffect(const Model& model, const Encoding& encoding,
                                              const RunOptions& options = {},
                                              const ProgressFn& progress = {});

/// Quantized minus full precision for head `head` of kept layer `index` (ModelRun::layers'
/// index); empty when the effect holds no such head.
Mat quantizationDelta(const QuantizationEffect& effect, size_t index, size_t head);

}  // namespace attn::models
