#pragma once
// A pretrained transformer opened from a Hugging Face model folder and run on
// the CPU: GPT-2 (learned positions, pre-LayerNorm, Conv1D weights, gelu_new,
// causal), BERT encoders (token type + position embeddings, post-LayerNorm,
// erf GELU, bidirectional with padding) and the Llama family (RMSNorm, RoPE
// rotate-half, grouped-query attention, SwiGLU; Llama 2/3, TinyLlama, SmolLM,
// Qwen2 with q/k/v biases, Mistral). Weights are memory-mapped safetensors
// (F32, F16, BF16). The forward pass follows the Hugging Face modeling code
// and returns every layer's per-head attention as engine results, so every
// view that draws an AttentionResult draws a model's layer.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/analysis/head_analysis.h"
#include "attn/engine.h"
#include "attn/models/attribution/contributions.h"
#include "attn/models/experiments/interventions.h"
#include "attn/models/lens/logit_lens.h"
#include "attn/models/streamed/qk_store.h"
#include "attn/status.h"
#include "attn/tensor.h"
#include "attn/tokenizers/hf/hf_tokenizer.h"
#include "attn/vision/preprocessing/image_processor.h"

namespace attn {
class WindowedAnalysis;  // analysis/streamed_analysis.h
}  // namespace attn

namespace attn::gpu {
class Device;
}

namespace attn::models {

enum class Family { Gpt2, Bert, Llama, Vit };
/// "GPT-2", "BERT", "Llama", "ViT".
std::string_view familyName(Family f);

/// Long work reports a fraction in [0, 1] and a short stage text; returning false cancels
/// (the call then fails with "cancelled").
using ProgressFn = std::function<bool(double fraction, std::string_view stage)>;

struct ModelInfo {
  std::string dir;        // the folder the files were read from (a cache layout resolved to its snapshot)
  std::string source;     // what Model::open was given: a folder, a .gguf file or "ollama:NAME:TAG"
  std::string name;       // "gpt2", "org/name" from a cache layout, or the folder's name
  std::string modelType;  // config.json model_type: gpt2, bert, roberta, llama, qwen2, mistral, ...
  Family family = Family::Gpt2;
  int layers = 0, heads = 0, kvHeads = 0, dModel = 0, headDim = 0, intermediate = 0;
  int vocabSize = 0;      // rows of the token embedding
  int maxPositions = 0;   // longest sequence the model accepts (0: no limit from the config)
  int64_t parameters = 0; // elements of every tensor loaded
  std::string dtype;      // of the weights on disk: "F32", "F16", "BF16", a ggml type "Q4_K" (or "mixed")
  std::string
      quantization;  // GGUF files: llama.cpp's file type and bits per weight, "Q4_K_M, 4.8 bits/weight"
  /// GGUF files: the weight types whose products run on quantized activations by default
  /// (RunOptions::quantizedDot: Q8_0, Q4_K, Q6_K), "Q4_K", "Q6_K"; empty when no product does.
  std::vector<std::string> quantizedProductTypes;
  std::string tokenizerKind;  // HfTokenizer::kindName()
  bool causal = false;
  bool maskedLm = false;  // a BERT-style checkpoint with its masked-LM head (cls.predictions / lm_head)
  std::string maskToken;  // the tokenizer's mask token ("[MASK]", "<mask>"); "" when none
  // Vision models (family Vit): square input of imageSize pixels in patchSize squares, the
  // [CLS] (+ distillation) tokens before the patches, and the classifier's label count (0: no head).
  bool vision = false;
  int imageSize = 0, patchSize = 0, prefixTokens = 0, labels = 0;
  std::string processorFile;  // preprocessor_config.json read ("" when absent: ViTImageProcessor defaults)
  /// What differs from a plain ViT, in a sentence ("" for ViT / DeiT): DINOv2's interpolated
  /// positions and registers, a CLIP folder of which only the image tower runs.
  std::string visionNote;
};

struct TopToken {
  int id = 0;
  std::string token;  // HfTokenizer::displayText(id)
  float prob = 0;
};

struct RunOptions {
  bool keepQkv = true;      // per-head q (after RoPE), k (after RoPE, repeated per query head for GQA), v
  /// Each head's output [N, head_dim] and the attention block's output [N, d_model] (the
  /// step-through and head views); false leaves them empty (a run that writes only the maps).
  bool keepOutputs = true;
  bool keepLogits = false;  // rawLogits / scaledLogits / maskedLogits per head (N x N each)
  int onlyLayer = -1;       // >= 0: keep that layer's results only (every layer still runs)
  int topK = 5;             // causal models: next-token predictions per position (0: none)
  /// Causal models: false fills ModelRun::nextTokens after the last position only (the others
  /// stay empty; Model::nextTokensAt gives any of them on demand). At long N the LM head's
  /// [N, vocab] product would otherwise be most of the run.
  bool topKEveryPosition = true;
  bool keepHiddenStates = false;  // hidden states after the embeddings and after every layer
  bool keepFullLogits = false;    // the lm_head logits [N, vocab] (causal), the masked-LM head's (BERT-style)
  bool keepAttention = true;      // false: ModelRun::layers stays empty (runs that only need the outputs)
  int maskTopK = 5;  // masked-LM models: predictions at each mask token of the text (0: none)
  /// Causal models: ModelRun::nextTokenLoss, the text's mean next-token loss, from the lm_head
  /// a vocabulary panel at a time (no [N, vocab] logits unless keepFullLogits asks for them).
  bool nextTokenLoss = false;
  /// Per-head interventions (interventions.h), applied together; errors name a layer or
  /// head the model lacks, a temperature <= 0 or a mask term that does not parse.
  std::vector<HeadIntervention> interventions;
  /// Prefix reuse: a run without interventions fills it; a run with interventions on the
  /// same encoding starts at the first intervened layer from the cached hidden states when
  /// no earlier layer's results are asked for (keepAttention false or onlyLayer at or past it).
  ForwardCache* cache = nullptr;
  /// ModelRun::contributions: attention norms, their residual + norm variant and ALTI
  /// (attribution/contributions.h) for every layer; the forward then keeps every layer's
  /// heads and hidden states while it runs and gives back only what the options ask for.
  bool contributions = false;
  /// ModelRun::lens: the logit lens (lens/logit_lens.h) with the lensTopK most probable
  /// tokens per layer and position; the forward keeps the hidden states while it runs.
  bool logitLens = false;
  int lensTopK = 5;
  /// Long prompts: no N x N array anywhere. Each head's measures come from the streamed
  /// analysis of the layer's F32 q/k (ModelRun::streamedLayers, with streamedAnalysis), which
  /// writes the layer's attention output from the same softmax rows (without measures: the
  /// tiled kernel, causal tiles skipped), and the post-RoPE
  /// q and k are kept in qkPrecision (ModelRun::qk) so that any map can be recomputed
  /// (streamed/head_maps.h). ModelRun::layers stays empty; interventions and contributions
  /// are refused (they need the maps).
  bool streamed = false;
  bool keepStreamedQk = true;  // false: measures only (ModelRun::qk stays null)
  /// With streamed measures of every layer: the attention rollout across the layers as well
  /// (Abnar & Zuidema 2020; ModelRun::streamedRollout), stepped from each layer's sum of its
  /// heads' rows as they are measured: two N x N double matrices, not the L x H maps.
  bool streamedRollout = false;
  QkPrecision qkPrecision = QkPrecision::F16;
  AnalysisOptions streamedAnalysis;
  /// One window of a longer text (streamed/windowed_run.h): with `streamed`, each layer's
  /// measures of the window's rows from windowFirstRow on go to (*windowLayers)[layer] as rows
  /// windowStart + i, instead of ModelRun::streamedLayers.
  std::vector<WindowedAnalysis>* windowLayers = nullptr;
  int windowStart = 0, windowFirstRow = 0;
  /// Chunked prefill: the MLP runs on blocks of this many rows (its [rows, intermediate]
  /// activations then stay the same size at any N); <= 0: all rows at once.
  int prefillRows = 1024;
  /// GGUF Q8_0 weights: products on 8-bit activations with integer block dot products, as
  /// llama.cpp computes them (gguf/quantized_dot.h); false: the dequantized weights against
  /// f32 activations. Other weight types are unaffected.
  bool quantizedDot = true;
  /// Model::runOnDevice with BF16/F16 weights: true widens each matrix to f32 just before its
  /// GEMM (the CPU's arithmetic, maps within 1e-5); false rounds the activations to the weights'
  /// format for the GEMMs (tensor cores; maps within about 2e-2 of the CPU's).
  bool deviceF32 = true;
};

struct ModelRun {
  Encoding encoding;
  /// Per layer (all, or only RunOptions::onlyLayer): heads with weights [N, N], entropy,
  /// output, (q/k/v, logits as asked); mask = causal or padding; tokens = encoding.tokens.
  std::vector<AttentionResult> layers;
  int firstLayer = 0;  // index of layers[0] (onlyLayer, or 0)
  /// Causal: [N][topK], the prediction after each position (only the last one filled when
  /// RunOptions::topKEveryPosition is false).
  std::vector<std::vector<TopToken>> nextTokens;
  std::vector<Mat> hiddenStates;  // keepHiddenStates: [layers + 1] x [N, d_model], as HF output_hidden_states
  Mat finalHidden;  // [N, d_model]: after the final norm (GPT-2 ln_f, Llama norm) or BERT's last layer
  /// keepHiddenStates, causal families on the CPU: the last layer's output before the final norm
  /// (hiddenStates' last entry is after it, as HF's output_hidden_states).
  Mat lastResidual;
  Mat logits;       // keepFullLogits: [N, vocab] (causal: lm_head; masked-LM models: the MLM head at every position)
  /// RunOptions::nextTokenLoss: mean of -log p(id[i+1] | ..i) over i with both tokens real (nats);
  /// empty when the text has fewer than 2 real tokens.
  std::optional<double> nextTokenLoss;
  // Masked-LM models, when the text holds the mask token: its positions, the head's logits
  // there [masked, vocab] and the maskTopK most probable tokens at each (as BertForMaskedLM).
  std::vector<int> maskPositions;
  Mat maskLogits;
  std::vector<std::vector<TopToken>> maskPredictions;
  /// RunOptions::contributions: every layer's, whatever onlyLayer kept.
  std::shared_ptr<const Contributions> contributions;
  // Vision models (Model::runImage): the pixels the model read, [C, H, W] after preprocessing,
  // the classifier's logits [1, labels] and its 5 most probable labels (TopToken::id the label id).
  vision::PixelTensor pixelValues;
  Mat labelLogits;
  std::vector<TopToken> topLabels;
  Mat pooledOutput;  // CLIP vision: post_layernorm of the last [CLS] state [1, d] (pooler_output)
  /// RunOptions::logitLens: rows 0..layers (the embeddings, then each layer's output).
  std::shared_ptr<const LogitLens> lens;
  /// RunOptions::streamed: every layer's per-head measures (as analyzeHeads over the layer's
  /// materialized weights would give them) and the kept q/k of every layer.
  std::vector<Analysis> streamedLayers;
  Mat streamedRollout;  // RunOptions::streamedRollout: R_L, row = token after the last layer
  std::shared_ptr<const QkStore> qk;
};

struct PatchingOptions;
struct PatchingResult;
struct GradientOptions;
struct GradientAttribution;
struct CausalGenerateOptions;
struct CausalGeneration;
struct FlowRouteOptions;
struct FlowRoutes;

class Model {
 public:
  /// Opens a model folder, a Hugging Face cache directory `models--org--name` (its newest
  /// snapshot, or the one refs/main names) or a `snapshots/<hash>` folder. Safetensors files are
  /// memory-mapped. A GGUF file (llama.cpp's format: llama, qwen2, gpt2) is opened whole: its
  /// metadata, quantized or float tensors (decoded inside the products) and embedded tokenizer. Errors name
  /// the file and the fault (missing file, unsupported model_type, tensor missing or of the wrong shape,
  /// shard absent, tokenizer ids beyond the vocabulary).
  static Result<std::shared_ptr<const Model>> open(const std::string& path, const ProgressFn& progress = {});

  const ModelInfo& info() const;
  const HfTokenizer& tokenizer() const;

  /// Tokenizes as the model expects (special tokens added). `pair`: BERT's second segment
  /// (also taken from a "[SEP]" inside `text` for BERT-style models). `padTo` > size appends
  /// the pad token with attention 0 up to that length, as HF's padding="max_length".
  Result<Encoding> encode(std::string_view text, std::optional<std::string_view> pair,
                          const std::string& source, int padTo = 0) const;
  /// Runs the forward pass (padding keys, attention 0, are masked as HF's attention_mask does;
  /// their query rows are still computed). Errors: empty input, a sequence past maxPositions, ids out of range.
  Result<ModelRun> run(const Encoding& encoding, const RunOptions& options = {},
                       const ProgressFn& progress = {}) const;

  /// Causal models: the `k` most probable tokens after `position` of `run` (a run of this
  /// model, whose finalHidden it reads), as RunOptions::topK would have given them. Errors:
  /// a bidirectional model, a position outside the run, k < 1.
  Result<std::vector<TopToken>> nextTokensAt(const ModelRun& run, int position, int k = 5) const;
  /// The forward on a GPU (models/device/device_run.h: GPT-2 and the Llama family), with the
  /// model's weights uploaded to `device` on the first call and kept. Errors name what the
  /// device forward does not cover (family, quantized weights, padding, an option) or the
  /// device's fault; models/device/device_run.h's runModelOn falls back to run() on them.
  Result<ModelRun> runOnDevice(gpu::Device& device, const Encoding& encoding, const RunOptions& options = {},
                               const ProgressFn& progress = {}) const;

  /// Vision models: `image` as the folder's preprocessor_config.json prepares it (resize with
  /// its resampling, centre crop, rescale, normalise). `source` (the image file) names errors.
  Result<vision::PixelTensor> preprocessImage(const vision::ImagePixels& image,
                                              const std::string& source) const;
  /// Vision models: the image processor preprocessImage applies (ViTImageProcessor's defaults
  /// when the folder has no preprocessor_config.json).
  const vision::ImageProcessorConfig& imageProcessor() const;
  /// Vision models: the forward pass on preprocessed pixels. ModelRun::encoding.tokens are
  /// "[CLS]" ("[DIST]" for DeiT) then "r{row}c{col}" per patch, row-major; ModelRun::pixelValues,
  /// labelLogits and topLabels (classification checkpoints) are filled. Text models: an error.
  Result<ModelRun> runImage(const vision::PixelTensor& pixels, const RunOptions& options = {},
                            const ProgressFn& progress = {}) const;
  /// Activation patching (patching/activation_patching.h): the corrupt encoding run with each
  /// asked-for activation taken from the clean encoding's run; target and foil are token ids.
  Result<PatchingResult> patch(const Encoding& clean, const Encoding& corrupt, int target, int foil,
                               const PatchingOptions& options, const ProgressFn& progress = {}) const;
  /// Gradient attribution (gradients/gradient_attribution.h) of token `target`'s logit at the
  /// last position: gradient x input, integrated gradients and attention x gradient.
  Result<GradientAttribution> gradients(const Encoding& encoding, int target, const GradientOptions& options,
                                        const ProgressFn& progress = {}) const;
  /// Causal models: the contribution graph (attribution/flow_routes.h, Ferrando & Voita 2024)
  /// of one forward on `encoding`. Errors: a BERT-style or vision model, a bad position or threshold.
  Result<FlowRoutes> flowRoutes(const Encoding& encoding, const FlowRouteOptions& options,
                                const ProgressFn& progress = {}) const;
  /// Causal models: text written after `prompt` with the folder's generation config
  /// (generation/causal_generation.h). Errors: a bidirectional or vision model, bad options.
  Result<CausalGeneration> generate(const Encoding& prompt, const CausalGenerateOptions& options,
                                    const ProgressFn& progress = {}) const;

  ~Model();
  struct Impl;

 private:
  explicit Model(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// True when `path` looks like a model folder (config.json present, or a cache layout).
bool isModelFolder(const std::string& path);

}  // namespace attn::models
