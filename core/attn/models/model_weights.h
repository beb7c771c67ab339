#pragma once
// The tensors of a model folder's safetensors file(s), found by their Hugging
// Face names and checked against config.json. F32 tensors are read in place from
// the mapping; BF16 matrices of nn.Linear layers and the token embedding stay
// BF16 in the mapping (converted a panel at a time by linear(): resident memory
// near 1x the file, opening without a conversion pass); other F16/BF16 tensors
// are converted to f32 once at load (their mapped pages then released).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attn/models/model.h"
#include "attn/models/model_config.h"
#include "attn/models/safetensors_mmap.h"
#include "attn/status.h"
#include "attn/tensor.h"

namespace attn::models {

/// A tensor: f32 (`data`, in the mapping or in converted storage), BF16 left in
/// the mapping (`bf16`, row-major, any alignment) or a GGUF tensor of another ggml
/// type left in the mapping (`quant`: rows of `quantRowBytes` bytes, each a whole
/// number of the type's blocks); empty when absent. BF16 and quantized matrices are
/// decoded a panel of rows at a time inside the products (nn_ops.cpp linear()).
struct WeightTensor {
  const float* data = nullptr;
  int64_t rows = 0, cols = 0;  // a vector has rows = 1
  const char* bf16 = nullptr;  // set instead of data for BF16 matrices kept as stored
  const char* quant = nullptr;  // set instead of data for GGUF matrices of ggml type quantType
  uint32_t quantType = 0;
  int64_t quantRowBytes = 0;

  bool empty() const { return data == nullptr && bf16 == nullptr && quant == nullptr; }
  bool isBf16() const { return bf16 != nullptr; }
  /// Stored in another format than f32: rows are decoded on use (rowTo / rowsTo).
  bool isPacked() const { return bf16 != nullptr || quant != nullptr; }
  /// f32 tensors only.
  Eigen::Map<const Mat> mat() const { return {data, rows, cols}; }
  Eigen::Map<const Eigen::RowVectorXf> row() const { return {data, rows * cols}; }
  /// Row r as f32 into dst[cols], whichever the storage.
  void rowTo(int64_t r, float* dst) const { rowsTo(r, 1, dst); }
  /// Rows [r0, r0 + m) as f32 into dst[m * cols] (row-major), whichever the storage.
  void rowsTo(int64_t r0, int64_t m, float* dst) const;
  /// Rows [r0, r0 + m) of a matrix, pointing into the same storage.
  WeightTensor rowRange(int64_t r0, int64_t m) const {
    WeightTensor t = *this;
    t.rows = m;
    if (data) t.data = data + r0 * cols;
    if (bf16) t.bf16 = bf16 + r0 * cols * 2;
    if (quant) t.quant = quant + r0 * quantRowBytes;
    return t;
  }
};

/// bfloat16 -> f32 (the upper half of an f32: shift left 16), AVX-512 / AVX2 where built for;
/// `src` needs no alignment.
void bf16ToFloat(const char* src, float* dst, int64_t n);

/// y = x W^T + b for Hugging Face nn.Linear ([out, in]), y = x W + b for GPT-2's Conv1D ([in, out]).
struct LinearWeight {
  WeightTensor w, b;  // b empty: no bias
  bool inOut = false;
  int64_t in() const { return inOut ? w.rows : w.cols; }
  int64_t out() const { return inOut ? w.cols : w.rows; }
};

struct NormWeight {
  WeightTensor gamma, beta;  // beta empty for RMSNorm
};

struct LayerWeights {
  LinearWeight qkv;         // GPT-2: c_attn, q|k|v side by side
  LinearWeight q, k, v, o;  // BERT / Llama (o also GPT-2's attn.c_proj)
  // GPT-2 / Llama: before attention and MLP (ln_1, ln_2 / input_layernorm, post_attention_layernorm);
  // BERT: after them (attention.output.LayerNorm, output.LayerNorm).
  NormWeight attnNorm, mlpNorm;
  LinearWeight up, gate, down;  // MLP: up (c_fc / intermediate.dense / up_proj), gate (Llama), down
  // DINOv2 layer scale (Touvron et al. 2021, "Going deeper with Image Transformers", eq. 4): the
  // attention's and the MLP's outputs times lambda1 [d] of layer_scale1 / layer_scale2.
  WeightTensor layerScale1, layerScale2;
};

/// Converted weights: 2 MB aligned and backed by transparent huge pages where the
/// kernel allows (first touch of 4 KB pages is expensive: seconds for a 1B model).
struct FreeDeleter {
  void operator()(float* p) const noexcept;
};
using FloatBuffer = std::unique_ptr<float, FreeDeleter>;
/// Null when memory is exhausted.
FloatBuffer allocateWeightBuffer(int64_t elements);

/// The masked-LM head of BERT-style checkpoints (BertForMaskedLM cls.predictions,
/// RobertaForMaskedLM lm_head); absent (transform empty) for bare encoder checkpoints.
struct MaskedLmHead {
  LinearWeight transform;  // dense [d, d] + bias
  NormWeight norm;         // LayerNorm after the activation
  WeightTensor decoder;    // [vocab, d]: the word embedding when tied
  WeightTensor bias;       // [vocab]
  Activation activation = Activation::GeluErf;
  bool present() const { return !transform.w.empty(); }
};

struct ModelWeights {
  WeightTensor tokenEmbedding;     // [vocab, d]
  WeightTensor positionEmbedding;  // [positions, d] (GPT-2, BERT)
  WeightTensor typeEmbedding;      // [types, d] (BERT)
  NormWeight embeddingNorm;        // BERT
  std::vector<LayerWeights> layers;
  NormWeight finalNorm;            // GPT-2 ln_f, Llama norm
  WeightTensor lmHead;             // [vocab, d]: causal models (the token embedding when tied)
  MaskedLmHead mlmHead;            // BERT-style masked-LM checkpoints
  // Vision transformers: positionEmbedding is [prefix + patches, d]; layers' attnNorm / mlpNorm
  // are layernorm_before / layernorm_after; finalNorm the encoder's layernorm.
  LinearWeight patchEmbedding;          // the Conv2d kernel [d, C, P, P] as [d, C*P*P], its bias
  WeightTensor clsToken;                // [1, d]
  WeightTensor distillationToken;       // [1, d] (DeiT)
  LinearWeight classifier;              // [labels, d] on [CLS] (DeiT with teacher: cls_classifier)
  LinearWeight distillationClassifier;  // DeiT with teacher: on the distillation token; logits averaged
  WeightTensor registerTokens;          // [registers, d] (DINOv2 with registers)
  NormWeight preNorm;                   // CLIP's pre_layrnorm on the embeddings (finalNorm: post_layernorm)
  int64_t parameters = 0;          // elements of every tensor loaded
  std::string dtype;               // "F32", "F16", "BF16" or "mixed"
  std::vector<std::string> files;  // the safetensors files read

  // Owners of what the tensors point into.
  std::vector<std::shared_ptr<SafetensorsFile>> mapped;
  std::vector<FloatBuffer> converted;
  std::shared_ptr<const void> keepAlive;  // a GGUF file the tensors point into
};

/// Finds and checks every tensor the config asks for in `dir` (model.safetensors, or the
/// shards model.safetensors.index.json names). `progress` sees the bytes converted.
Result<ModelWeights> loadModelWeights(const std::string& dir, const ModelConfig& config,
                                      const ProgressFn& progress = {});

/// The shard files of a model.safetensors.index.json (its text; `source` names it),
/// in order of first appearance, checked to be plain file names.
Result<std::vector<std::string>> parseSafetensorsIndex(std::string_view json, const std::string& source);

}  // namespace attn::models
