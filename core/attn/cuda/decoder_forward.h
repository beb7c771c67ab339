#pragma once
// A decoder's forward pass on a Device (GPT-2 and the Llama family: Llama 2/3,
// Qwen2, Mistral within its window), chaining the weight cache's tensors, the
// mixed-precision GEMM and the kernels of model_block.h and flash_block.h as the
// CPU families do (models/families/gpt2.cpp, llama.cpp): norm, projections,
// RoPE, causal GQA flash attention with the row measures kept online, W_O,
// residual, norm, MLP, residual; the final norm and the lm_head's top k.
// With 16-bit weights the GEMMs read the activations rounded to the same format
// (cuBLAS multiplies like types): the tensor cores' path, whose maps differ from the
// CPU's f32 activations by about 1e-2 on the BF16 fixtures. f32Compute instead widens
// each weight to f32 just before its GEMM and keeps every activation f32 (the CPU's
// arithmetic, within 1e-5; no tensor cores). F32 weights are f32 either way.
//
// Runs on the emulated device in the tests (tests/core/cuda/decoder_forward_test.cpp)
// against the CPU forward; it has not run on a GPU. Model::runOnDevice calls it through
// models/device/device_run.h, which turns its result into a ModelRun.
#include <functional>
#include <vector>

#include "attn/cuda/device.h"
#include "attn/cuda/weight_cache.h"
#include "attn/models/model.h"
#include "attn/models/model_config.h"

namespace attn::gpu {

struct DecoderForwardOptions {
  bool keepMaps = true;  // every kept head's weights [n, n], layer by layer
  int onlyLayer = -1;    // >= 0: keep that layer's results only (every layer still runs)
  bool keepOutputs =
      false;             // per head: its output [n, hd]; per layer: the heads' concatenation, W_O's output
  bool keepQkv = false;  // per head: q and k after RoPE, v (GQA: the K/V head's k and v)
  int topK = 5;          // next-token predictions per position (0: no lm_head)
  bool keepFullLogits = false;  // the lm_head's [n, vocab]
  bool f32Compute = false;      // 16-bit weights widened to f32 per GEMM, activations kept f32
  // Called before each layer (0..layers-1) and once more before the lm_head (layers): false
  // stops the forward there with "cancelled", its buffers released (the cache is the caller's).
  std::function<bool(int layer)> beforeLayer;
  bool keepLayer(int l) const { return onlyLayer < 0 || onlyLayer == l; }
};

/// What a kept layer's heads computed besides their maps and entropies (keepOutputs, keepQkv).
struct DecoderLayerOutputs {
  std::vector<Mat> headOutput;  // [head] [n, hd]
  Mat concat;                   // [n, heads * hd]
  Mat output;                   // [n, d]: W_O (+ bias) of concat, before the residual
  std::vector<Mat> q, k, v;     // [head] [n, hd]
};

struct DecoderForwardResult {
  // Per kept layer (every layer, or onlyLayer's alone):
  std::vector<std::vector<Mat>> weights;                  // [layer][head] (keepMaps)
  std::vector<std::vector<Vec>> entropy;                  // [layer][head], [n] nats
  std::vector<DecoderLayerOutputs> layers;                // keepOutputs or keepQkv
  Mat finalHidden;                                        // [n, d], after the final norm
  std::vector<std::vector<models::TopToken>> nextTokens;  // [n][topK]: ids and probabilities
  Mat logits;                                             // keepFullLogits: [n, vocab]
};

/// `ids` unpadded (every key visible but the causal mask). Errors name what the device
/// forward does not cover: another family, a sliding window shorter than the sequence,
/// weights of mixed storage, a head size whose flash tile does not fit the shared memory;
/// "cancelled" when options.beforeLayer said stop.
Result<DecoderForwardResult> decoderForward(Device& dev, const models::ModelConfig& config,
                                            const models::ModelWeights& weights,
                                            const DeviceWeightCache& cache, const std::vector<int>& ids,
                                            const DecoderForwardOptions& options);

}  // namespace attn::gpu
