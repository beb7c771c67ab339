#pragma once
// What to train: a toy task and a tiny attention model, its initialisation and
// its optimizer. Plain values; validateTrainConfig names the first bad field.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "attn/status.h"

namespace attn::train {

/// The toy tasks of the training view. Every task maps an input sequence of
/// length N to N output tokens, and has one attention pattern that solves it
/// (expectedPattern in tasks.h).
enum class Task {
  Copy,       // y_i = x_i                       pattern: the diagonal
  Reverse,    // y_i = x_{N-1-i}                 pattern: the anti-diagonal
  Sort,       // y = sorted(x) (stable)          pattern: the sorting permutation
  Shift,      // y_i = x_{i-1}, y_0 = x_{N-1}    pattern: the sub-diagonal (cyclic)
  Translate,  // encoder–decoder: source words of one bundled toy vocabulary, target
              // words of another, in a fixed reordering (adjacent pairs swapped, as
              // adjective–noun order flips between languages). Target positions
              // query the source by cross-attention. pattern: that reordering
  Brackets,   // x is a balanced string of '(' and ')'; y_i = position of the bracket
              // matching x_i (N output classes). pattern: i -> match(i)
  Induction,  // next-token prediction (always causal) on random tokens whose later part
              // repeats an earlier segment, at a random offset and of a random length;
              // only tokens inside the repeat are scored (y_i = x_{i+1} there, else
              // ignored). Solved by a previous-token head in layer 1 composing with an
              // induction head in layer 2 (Olsson et al. 2022). pattern: i -> i - offset + 1
};

/// Score function of every attention layer (Bahdanau et al. 2015 additive;
/// Luong et al. 2015 dot and general; Vaswani et al. 2017 scaled dot).
enum class TrainMechanism {
  Dot,        // s = q·k
  ScaledDot,  // s = q·k / sqrt(d_k)
  General,    // s = qᵀ W k / sqrt(d_k), W a learned [d_k, d_k] per head
  Additive,   // s = vᵀ tanh(W_aᵀ q + U_aᵀ k), hidden size additiveHidden
};

enum class TrainInit {
  Xavier,      // Glorot & Bengio 2010, uniform
  Kaiming,     // He et al. 2015, normal, fan_in
  Orthogonal,  // Saxe et al. 2014
  Bad,         // deliberately broken: the query/key side (W_Q, W_K, the bilinear W and
               // the additive v) starts at exactly 0, so every logit is 0, every map is
               // uniform and no gradient reaches those weights: attention never forms
};

enum class OptimizerKind {
  Sgd,   // plain SGD, no momentum
  Adam,  // Kingma & Ba 2015, beta1 0.9, beta2 0.999, eps 1e-8, bias-corrected
};

/// Everything that defines a run. Same config (seed included) -> same run, bit for bit.
struct TrainConfig {
  Task task = Task::Copy;
  int seqLen = 8;      // N (Brackets: even)
  int vocabSize = 10;  // input symbols (Translate: words per toy language, at most
                       // translateVocabularyLimit(); Brackets: ignored, always 2)
  TrainMechanism mechanism = TrainMechanism::ScaledDot;
  int heads = 1;
  int dK = 16;          // per-head query/key/value width
  int dModel = 32;      // embedding width
  int layers = 1;       // 1 or 2 attention layers
  bool residual = false;    // residual stream: each layer adds its output to its input
                            // (Elhage et al. 2021); false: the output replaces it
  int mlpHidden = 0;        // > 0 (residual only): a ReLU MLP of this width after each
                            // layer's attention, also added to the stream; 0 = attention only
  int additiveHidden = 16;  // hidden width of the additive score
  bool causal = false;      // causal mask on self-attention (key j <= query i)
  TrainInit init = TrainInit::Xavier;
  OptimizerKind optimizer = OptimizerKind::Adam;
  double learningRate = 3e-3;
  int batchSize = 32;       // fresh random sequences per step
  uint64_t seed = 1;        // weights, batches and the fixed example all derive from it
  double entropyWeight = 0.0;  // loss += entropyWeight * mean row entropy (nats) of every
                               // head and layer; > 0 pulls heads toward focus
  double gradClipNorm = 0.0;   // > 0: rescale the gradient to this global L2 norm when above
                               // it (as torch.nn.utils.clip_grad_norm_); 0 = off
  double temperature = 1.0;    // logits are divided by it after scaling (docs/architecture.md, numerical conventions)
  int mapEvery = 1;            // keep the fixed example's maps in the history every k steps
                               // (curves are kept for every step)
};

std::string_view taskName(
    Task t);  // "copy", "reverse", "sort", "shift", "translate", "brackets", "induction"
std::optional<Task> parseTask(std::string_view name);
std::string_view trainMechanismName(TrainMechanism m);  // "dot", "scaled_dot", "general", "additive"
std::optional<TrainMechanism> parseTrainMechanism(std::string_view name);
std::string_view trainInitName(TrainInit i);  // "xavier", "kaiming", "orthogonal", "bad"
std::optional<TrainInit> parseTrainInit(std::string_view name);
std::string_view optimizerName(OptimizerKind o);  // "sgd", "adam"
std::optional<OptimizerKind> parseOptimizer(std::string_view name);

/// Limits of validateTrainConfig (kept small: this is a classroom toy).
struct TrainLimits {
  static constexpr int maxSeqLen = 64;
  static constexpr int maxVocab = 36;  // symbols 0-9 then A-Z
  static constexpr int maxHeads = 8;
  static constexpr int maxDim = 256;   // dK, dModel, additiveHidden
  static constexpr int maxLayers = 2;
  static constexpr int maxBatch = 1024;
  static constexpr int minInductionSeqLen = 8;  // room for a repeat of at least 2 tokens
};

/// Ok, or one line naming the field and what was expected
/// ("seq-len must be between 2 and 64 (got 1)").
Status validateTrainConfig(const TrainConfig& config);

}  // namespace attn::train
