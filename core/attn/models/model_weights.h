#pragma once
// The tensors of a model folder's safetensors file(s), found by their Hugging
// Face names, checked against config.json and held as f32: F32 tensors are
// read in place from the mapping, F16/BF16 ones converted once at load (their
// mapped pages are then released, so resident memory stays near 2x a BF16 file).
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

/// An f32 tensor, in the mapping or in converted storage; empty when absent.
struct WeightTensor {
  const float* data = nullptr;
  int64_t rows = 0, cols = 0;  // a vector has rows = 1

  bool empty() const { return data == nullptr; }
  Eigen::Map<const Mat> mat() const { return {data, rows, cols}; }
  Eigen::Map<const Eigen::RowVectorXf> row() const { return {data, rows * cols}; }
};

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
};

struct ModelWeights {
  WeightTensor tokenEmbedding;     // [vocab, d]
  WeightTensor positionEmbedding;  // [positions, d] (GPT-2, BERT)
  WeightTensor typeEmbedding;      // [types, d] (BERT)
  NormWeight embeddingNorm;        // BERT
  std::vector<LayerWeights> layers;
  NormWeight finalNorm;            // GPT-2 ln_f, Llama norm
  WeightTensor lmHead;             // [vocab, d]: causal models (the token embedding when tied)
  int64_t parameters = 0;          // elements of every tensor loaded
  std::string dtype;               // "F32", "F16", "BF16" or "mixed"
  std::vector<std::string> files;  // the safetensors files read

  // Owners of what the tensors point into.
  std::vector<std::shared_ptr<SafetensorsFile>> mapped;
  std::vector<std::unique_ptr<float[]>> converted;
};

/// Finds and checks every tensor the config asks for in `dir` (model.safetensors, or the
/// shards model.safetensors.index.json names). `progress` sees the bytes converted.
Result<ModelWeights> loadModelWeights(const std::string& dir, const ModelConfig& config,
                                      const ProgressFn& progress = {});

/// The shard files of a model.safetensors.index.json (its text; `source` names it),
/// in order of first appearance, checked to be plain file names.
Result<std::vector<std::string>> parseSafetensorsIndex(std::string_view json, const std::string& source);

}  // namespace attn::models
