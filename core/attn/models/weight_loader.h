#pragma once
// A checkpoint's tensors found by their Hugging Face names across its safetensors
// file(s), each checked against the shape its config implies, then pointed at in the
// mapping (F32) or converted (F16, BF16; see model_weights.h). Every family's loader
// (model_weights.cpp, seq2seq/seq2seq_weights.cpp) queues its tensors through one.
#include <memory>
#include <string>
#include <vector>

#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"
#include "attn/models/safetensors_mmap.h"
#include "attn/status.h"

namespace attn::models {

class WeightLoader {
 public:
  /// `config` names the model in errors (model_type, layers, d_model) and gives d_model
  /// to needNorm; `source` is the safetensors file, or the index for shards.
  WeightLoader(const ModelConfig& config, std::string source);
  ~WeightLoader();

  /// Adds a mapped file's tensors; a name already seen in another file is an error.
  Status add(std::shared_ptr<SafetensorsFile> f);
  /// The prefix the checkpoint's names carry (BertForMaskedLM "bert.", GPT2LMHeadModel "transformer.", ...).
  Status choosePrefix(const std::string& probe, const std::vector<std::string>& prefixes);
  /// Whether the files hold `full` (no prefix added).
  bool has(const std::string& full) const;
  /// Queues `name` (after the prefix unless `bare`) with the shape the config implies.
  Status need(WeightTensor& dest, const std::string& name, std::vector<int64_t> shape, bool bare = false,
              bool keepBf16 = false);
  /// nn.Linear ([out, in]) or Conv1D ([in, out]) weight and, with `bias`, its bias.
  Status needLinear(LinearWeight& l, const std::string& name, int64_t in, int64_t out, bool bias,
                    bool conv1d);
  /// A norm's weight and, with `bias`, its bias, both [d_model].
  Status needNorm(NormWeight& n, const std::string& name, bool bias);
  /// Points every queued tensor at its data, converting F16/BF16 to f32; NaN or Inf refused.
  Status materialize(const ProgressFn& progress);
  /// The owners of the mappings and converted buffers, parameter count and dtype.
  ModelWeights& out();

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// A loader over `dir`'s model.safetensors, or the shards its model.safetensors.index.json
/// names; errors name the missing file (and say so when only PyTorch .bin weights are there).
Result<std::unique_ptr<WeightLoader>> openWeightFiles(const std::string& dir, const ModelConfig& config,
                                                      const ProgressFn& progress = {});

}  // namespace attn::models
