#pragma once
// A GGUF file as a model: its metadata mapped to the ModelConfig the families run
// (llama.cpp's llama-arch.cpp key names) and its tensors (llama.cpp's names:
// token_embd, blk.N.attn_q, ...) to the ModelWeights they read. Matrices stay in
// the mapping in their stored type and are decoded a panel at a time inside the
// products; only norms, biases and GPT-2's position table are decoded to f32.
#include <memory>
#include <string>
#include <vector>

#include "attn/models/gguf/gguf_file.h"
#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"
#include "attn/status.h"

namespace attn::models::gguf {

/// `general.architecture` llama (Llama 2/3, TinyLlama, Mistral, SmolLM), qwen2 or gpt2, with
/// its hyper-parameters; errors name the file and the key.
Result<ModelConfig> ggufModelConfig(const GgufFile& f);

/// Every tensor `c` needs, checked for shape and type (one the dequantizers decode).
Result<ModelWeights> loadGgufWeights(const std::shared_ptr<const GgufFile>& f, const ModelConfig& c);

/// The file's weight format as llama.cpp names it (general.file_type: "Q4_K_M", "Q8_0", "F16",
/// ...; the most common matrix type when the key is absent) and its bits per weight over every
/// tensor: "Q4_K_M, 4.8 bits/weight".
std::string ggufWeightSummary(const GgufFile& f);

/// The ggml types ("Q8_0", "Q4_K", ...) of the matrices whose products run on quantized
/// activations when RunOptions::quantizedDot is on (quantized_dot.h: the row length a whole
/// number of the activation blocks), in ggml type order; empty when none does.
std::vector<std::string> quantizedProductTypes(const ModelWeights& w);

}  // namespace attn::models::gguf
