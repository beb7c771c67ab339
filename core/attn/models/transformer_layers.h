#pragma once
// The blocks every model family's forward pass is assembled from (the families
// themselves are in families/): token embeddings, multi-head self-attention with
// the per-head interventions, the two MLP shapes, and the two output heads. One
// ForwardPass carries what every layer reads, so a family's block reads like its
// paper's diagram: norm, attention, residual, norm, MLP, residual.
#include <functional>
#include <string>
#include <vector>

#include "attn/models/model.h"
#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"
#include "attn/models/nn_ops.h"
#include "attn/vision/preprocessing/image_processor.h"

namespace attn::models {

/// Activation patching (Vig et al. 2020, "Causal Mediation Analysis"; Meng et al. 2022;
/// Wang et al. 2023, "Interpretability in the Wild"): what a pass records from every
/// layer, or the one activation it takes from another run instead of computing it.
struct ActivationHooks {
  enum class Site { None, HeadOutput, MlpOutput };
  std::vector<Mat>* recordHeads = nullptr;   // per layer: the heads' outputs [n, H*hd], before W_O
  std::vector<Mat>* recordMlp = nullptr;     // per layer: the MLP's output [n, d], before the residual
  std::vector<Mat>* recordKeys = nullptr;    // per layer: the keys [n, KV*hd] (after RoPE)
  std::vector<Mat>* recordValues = nullptr;  // per layer: the values [n, KV*hd]
  Site site = Site::None;
  int layer = -1;
  int index = -1;               // HeadOutput: the query head (every position); MlpOutput: the position
  const Mat* source = nullptr;  // the other run's recorded matrix of that layer and site
};

struct StreamedOutputs;  // streamed/streamed_attention.h
struct StackedPatches;   // patching/stacked_patches.h

/// One forward pass over one encoding: the model, its mask bitmap and per-layer head
/// edits, and the scratch matrices the layers reuse (rows are tokens).
struct ForwardPass {
  ForwardPass(const ModelConfig& c, const ModelWeights& w, const Encoding& e, const RunOptions& o,
              const std::vector<uint8_t>& k, const std::vector<std::vector<HeadEdit>>& ed,
              const std::function<std::string(int)>& d)
      : config(c), weights(w), enc(e), opt(o), keep(k), edits(ed), display(d) {}

  const ModelConfig& config;
  const ModelWeights& weights;
  const Encoding& enc;
  const RunOptions& opt;
  const std::vector<uint8_t>& keep;                 // the model's mask [N, N]; empty: every key
  const std::vector<std::vector<HeadEdit>>& edits;  // per layer, per head
  const std::function<std::string(int)>& display;   // id -> text for the predictions
  RopeTable rope;                                   // rotary families only
  const vision::PixelTensor* pixels = nullptr;      // vision families: the preprocessed image
  ActivationHooks* hooks = nullptr;                 // activation patching; null: none
  StreamedOutputs* streamed = nullptr;              // RunOptions::streamed; null: maps materialized
  const StackedPatches* stacked = nullptr;          // many patched runs' rows at once; null: one sequence
  Mat a, qkv, q, k, v, concat, o, u, g;

  int tokens() const { return enc.size(); }
  const LayerWeights& layer(int l) const { return weights.layers[static_cast<size_t>(l)]; }
};

/// h [n, d] = the token embedding rows of the encoding's ids.
void tokenEmbeddings(const ForwardPass& f, Mat& h);

/// Multi-head attention of layer `l` on the projected f.q [n, H*hd], f.k, f.v [n, KV*hd]
/// (query head h reads kv head h / (H / KV), transformers' repeat_kv), logits times
/// `scale`; then the output projection: f.o = concat W_O (before the residual).
/// With `store`, `res` keeps the heads (and res.output = f.o). A streamed pass
/// (f.streamed) computes the heads tiled instead and keeps their measures and q/k; a
/// stack of patched runs (f.stacked) attends each run's rows to its own keys.
void selfAttention(ForwardPass& f, int l, float scale, bool store, AttentionResult& res);

/// After layer l's MLP: records `out` or replaces one position's row (f.hooks).
void mlpOutputHook(ForwardPass& f, int l, Mat& out);

/// out = act(x W_up) W_down (GPT-2's MLP, BERT's intermediate + output dense).
void mlp(ForwardPass& f, const LayerWeights& L, const Mat& x, Mat& out);
/// out = (act(x W_gate) * x W_up) W_down: SwiGLU (Shazeer 2020, "GLU Variants
/// Improve Transformer", eq. 6), the Llama family's MLP.
void gatedMlp(ForwardPass& f, const LayerWeights& L, const Mat& x, Mat& out);

/// Causal LM head on run.finalHidden (the last hidden state, after the final norm,
/// kept with the hidden states): lm_head logits, the top next tokens and the mean
/// next-token loss, as RunOptions asks.
void causalLmOutputs(ForwardPass& f, ModelRun& run);
/// Masked-LM head (mlm_head.h) on run.finalHidden at the mask tokens: logits and
/// predictions, as RunOptions asks; nothing for a checkpoint without the head.
void maskedLmOutputs(ForwardPass& f, ModelRun& run);

/// The `k` most probable next tokens after each of `rows` (positions of `finalHidden`, the
/// last hidden state after the final norm): the LM head `blockRows` rows at a time, so no
/// [N, vocab] array is ever held. `display` names the tokens ("" when empty).
std::vector<std::vector<TopToken>> nextTokensAtRows(const WeightTensor& lmHead, const Mat& finalHidden,
                                                    const std::vector<int>& rows, int k,
                                                    const std::function<std::string(int)>& display,
                                                    int blockRows = 256);

}  // namespace attn::models
