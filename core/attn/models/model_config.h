#pragma once
// config.json of a Hugging Face model folder, reduced to what the forward pass
// needs, and the folder itself (plain, or a Hugging Face cache layout).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/models/model.h"
#include "attn/status.h"

namespace attn::models {

enum class Activation { GeluNew, GeluErf, Relu, Silu, QuickGelu };

/// The vision transformers of Family::Vit: ViT / DeiT (and DINO in the ViT layout), DINOv2
/// (layer scale, optional SwiGLU and register tokens, positions interpolated to the image)
/// and CLIP's image tower (pre-LayerNorm on the embeddings, quick GELU, post-LayerNorm on [CLS]).
enum class VisionArch { Vit, Dinov2, ClipVision };

/// RoPE frequency scaling (config rope_scaling): none, "linear" (positions / factor) or
/// "llama3" (Llama 3.1+, transformers' _compute_llama3_parameters).
struct RopeScaling {
  std::string type;  // "" = none
  double factor = 1, lowFreqFactor = 1, highFreqFactor = 4, originalMaxPositions = 8192;
  /// GGUF files of Llama 3.1+ store the llama3 scaling as one divisor per frequency (llama.cpp's
  /// rope_freqs tensor, written by its converter from the same formula); used when not empty.
  std::vector<float> freqFactors;
};

struct ModelConfig {
  std::string modelType;  // config.json model_type
  Family family = Family::Gpt2;
  int layers = 0, heads = 0, kvHeads = 0, dModel = 0, headDim = 0, intermediate = 0;
  int vocabSize = 0;
  int maxPositions = 0;      // rows of the position table (BERT/GPT-2), or the RoPE context (Llama)
  int positionOffset = 0;    // RoBERTa: positions start at pad_token_id + 1
  int typeVocabSize = 0;     // BERT token types (0: none)
  /// DistilBERT sinusoidal_pos_embds: a checkpoint without a position table gets the fixed
  /// sinusoidal one (Vaswani et al. 2017, section 3.5) as transformers initialises it.
  bool sinusoidalPositions = false;
  int padTokenId = -1;
  double normEps = 1e-5;
  Activation activation = Activation::GeluNew;
  double ropeTheta = 10000.0;
  RopeScaling ropeScaling;
  int slidingWindow = 0;     // Mistral: keys at most this far back (0: none)
  bool tieWordEmbeddings = true;
  bool attentionBias = false;  // q/k/v (and o for Llama's attention_bias) biases
  bool outputBias = false;     // o_proj bias (Llama attention_bias=true)
  bool mlpBias = false;        // Llama mlp_bias
  bool scaleByInverseLayer = false;  // GPT-2 scale_attn_by_inverse_layer_idx
  /// GGUF `llama` files: llama.cpp's converter interleaved the two halves of each q/k head's rows
  /// (its `permute`, for GPT-J-style RoPE); the forward puts q/k columns back in Hugging Face order.
  bool qkRowsInterleaved = false;
  int maskTokenId = -1;      // the tokenizer's mask token ([MASK], <mask>), set by Model::open; -1: none
  // Vision transformers (ViT, DeiT): square images of imageSize pixels cut into patchSize squares.
  int imageSize = 0, patchSize = 0, numChannels = 0;
  int prefixTokens = 0;             // [CLS] (and DeiT's distillation token) before the patches
  std::vector<std::string> labels;  // id2label by id: the classifier's outputs ("" for a gap)
  VisionArch visionArch = VisionArch::Vit;
  int registerTokens = 0;             // DINOv2 with registers: after [CLS], before the patches
  bool swiglu = false;                // DINOv2 use_swiglu_ffn: weights_in / weights_out
  bool interpolatePositions = false;  // DINOv2: the position grid resized to any image's grid
  bool visionTowerOnly = false;       // a CLIP (image + text) folder: only its vision_model runs

  /// Longest sequence the model accepts (positions start at positionOffset).
  int maxSequence() const { return maxPositions > 0 ? maxPositions - positionOffset : 0; }
};

/// transformers' ACT2FN name `name` (config key `key`, file `src` for the message).
Result<Activation> parseActivation(const std::string& name, const std::string& key, const std::string& src);

/// Parses config.json text; `source` (the file's path) names it in errors.
Result<ModelConfig> parseModelConfig(std::string_view json, const std::string& source);

/// A model folder resolved from what the user pointed at.
struct ModelFolder {
  std::string dir;   // holds config.json
  std::string name;  // "org/name" for a cache layout, else the folder's name
};
/// `path` is a folder with config.json, a cache directory `models--org--name` (the
/// snapshot refs/main names, else the newest), or its `snapshots/<hash>` folder.
Result<ModelFolder> resolveModelFolder(const std::string& path);

/// A resolved model folder and its config.json, read under the path rule and the size limit.
struct FolderConfig {
  ModelFolder folder;
  std::string path;  // config.json's path, for messages
  std::string text;
};
/// Resolves `path` (resolveModelFolder) and reads its config.json; `progress` may cancel first.
Result<FolderConfig> readFolderConfig(const std::string& path, const ProgressFn& progress);

}  // namespace attn::models
