#pragma once
// --model DIR: a Hugging Face model folder run on the text. The commands view
// its layers as engine results (run writes every layer, metrics analyses every
// layer with rollout and flow, export draws one layer's heads).
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attn/models/device/device_run.h"
#include "attn/models/experiments/head_experiments.h"
#include "attn/models/model.h"
#include "attn/models/quantization/quantization_effect.h"
#include "attn/spec.h"
#include "attn/status.h"

namespace attn::cli {

struct InputOptions;

struct ModelRequest {
  std::shared_ptr<const models::Model> model;
  models::ModelRun run;  // with --intervene: the intervened run
  // --intervene: the run without interventions and what changed (run = after).
  std::vector<models::HeadIntervention> interventions;
  std::optional<models::ModelRun> before;
  std::optional<models::RunComparison> comparison;
  // Wall seconds of each stage (open, input, forward), in order, for `run --profile`.
  std::vector<std::pair<std::string, double>> stages;
  // --quantization-effect: the full-precision run and the comparison (run = the quantized run,
  // moved out of quantization->quantized).
  std::optional<models::QuantizationEffect> quantization;
};

/// RunOptions::onlyLayer for "the model's last layer", resolved once the model is open.
inline constexpr int kLastLayer = -2;

/// With --model, the run the figure commands (export, geometry) draw from: one layer's
/// heads (--layer, else the last) with their q, k and v, no next-token predictions.
void keepOneLayer(InputOptions& o);

/// Progress on stderr when it is a terminal (empty otherwise).
models::ProgressFn terminalProgress();

/// `enc` within the model's context: cut to --max-tokens (first tokens, special tokens kept) or
/// refused past max_position_embeddings with the count; `source` names the text in messages.
Result<models::Encoding> fitContext(const models::ModelInfo& info, models::Encoding enc,
                                    const InputOptions& o, const std::string& source);

/// metrics --stride, or half the --window when not given.
int windowStride(const InputOptions& o);

/// Opens --model (its folder) and encodes --text/--text-file (and --key-text as the second segment).
Result<std::pair<std::shared_ptr<const models::Model>, models::Encoding>> openModelText(const InputOptions& o);

/// Opens --model, encodes --text/--text-file (with --key-text as the second
/// segment) and runs every layer; with --intervene, runs the model twice (without,
/// then with the interventions) and compares the runs; with --quantization-effect, twice (quantized
/// products, then full precision: models/quantization/quantization_effect.h). Progress goes to stderr when it
/// is a terminal. `adjust`, when given, sees the model and the encoded text before the run: it may change the
/// run's options to the sequence (stream a long one) or refuse it.
using AdjustRun = std::function<Status(const models::ModelInfo& info, const models::Encoding& enc,
                                       models::RunOptions& options)>;
Result<ModelRequest> runModelRequest(const InputOptions& o, const models::RunOptions& runOptions,
                                     const AdjustRun& adjust = {});

/// The spec a model's attention amounts to, for the views that read one
/// (step-through scaling, titles): scaled dot over its heads, causal or padding mask.
AttentionSpec modelSpec(const models::ModelInfo& info, const models::Encoding& encoding);

/// --backend and --gpu-inputs with --model, for runModelRequest: where the forward of `tokens`
/// tokens runs (models/device/device_run.h), the plan's fallback line printed on stderr;
/// sets options.deviceF32 (fp32: f32 arithmetic; fp16/bf16: the weights' 16-bit format).
Result<models::ModelBackend> chooseModelBackend(const InputOptions& o, const models::ModelInfo& info,
                                                int tokens, models::RunOptions& options,
                                                const std::vector<models::HeadIntervention>& interventions);

/// --backend with --model: where the forward of `tokens` tokens runs (models/device/forward_plan.h).
/// An unknown name is an error; a request for the GPU that falls back prints one line on stderr
/// saying which piece runs on the CPU and why. Returns whether the device was chosen.
Result<bool> planModelBackend(const std::string& backend, const models::ModelInfo& info, int tokens,
                              const models::RunOptions& options);

/// 0-based index into run.layers for the 1-based --layer (0 = the last layer).
Result<int> modelLayerIndex(const ModelRequest& req, int layerOption);

/// A target token for patch and gradients: "#ID" names a token id; any other text must be exactly
/// one token of the model's vocabulary (special tokens the tokenizer adds around it are not counted).
/// `option` (--target, --foil) names the fault.
Result<int> tokenId(const models::Model& model, const std::string& text, const std::string& option);

/// The model's one-paragraph description (`info DIR`, `run`'s summary line).
std::string describeModel(const models::ModelInfo& info);

}  // namespace attn::cli
