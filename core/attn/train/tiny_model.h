#pragma once
// The tiny attention model and its hand-written backward pass (no framework).
//
//   h0 = E[x] + P                          token + learned positional embedding
//   (Translate: keys/values from h0 of the source, queries from Pq, a learned
//    embedding of the target positions: encoder–decoder cross-attention)
//   per layer l, head h, on the stream x_l (x_0 = h0, or Pq for Translate):
//     Q = x_l W_Q,  K = Xkv W_K,  V = Xkv W_V              [N, d_k]  (Xkv = x_l; Translate: h0)
//     S = score(Q, K) / temperature  (+ -inf where masked)
//     A = softmax_rows(S)                                  the attention map
//     O_h = A V
//   attn_l = concat_h(O_h) W_O                             [N, d_model]
//   without residual (default):  x_{l+1} = attn_l
//   with residual:               u_l = x_l + attn_l
//                                x_{l+1} = u_l + ReLU(u_l W_1 + b_1) W_2 + b_2   (optional MLP)
//                                x_{l+1} = u_l                                   (attention only)
//   logits = x_L W_out + b_out,   loss = mean CE(logits, y) + λ · mean_rows H(A)
//   (the mean CE skips targets equal to kIgnoredTarget)
//
// Without the residual path the output can only see the input through
// attention, so the map must form for the task to be learned. With it, this is
// the attention-only transformer of Elhage et al. 2021 ("A Mathematical
// Framework for Transformer Circuits", sec. 2: the residual stream, each head
// reading from and adding to it; W_E = E, W_U = W_out, W_OV = W_V W_O per
// head), without layer norm, optionally with an MLP per layer. Two layers let
// a layer-2 head compose with a layer-1 head's output (K-composition): the
// induction circuit of Olsson et al. 2022, "In-context Learning and Induction Heads".
// Templated on the scalar: float for training, double for gradient checks.
#include <Eigen/Core>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "attn/train/tasks.h"
#include "attn/train/train_config.h"

namespace attn::train {

template <class S>
using MatT = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <class S>
struct LayerParams {
  std::vector<MatT<S>> wQ, wK, wV;  // [heads] of [d_in, d_k]
  MatT<S> wO;                       // [heads*d_k, d_model]
  std::vector<MatT<S>> wBilinear;   // General: [heads] of [d_k, d_k]
  std::vector<MatT<S>> wAddQ;       // Additive: [heads] of [d_k, hidden]
  std::vector<MatT<S>> wAddK;       // Additive: [heads] of [d_k, hidden]
  std::vector<MatT<S>> vAdd;        // Additive: [heads] of [1, hidden]
  MatT<S> mlpW1, mlpB1, mlpW2, mlpB2;  // MLP (mlpHidden > 0): [d_model, hidden], [1, hidden],
                                       // [hidden, d_model], [1, d_model]; else empty
};

template <class S>
struct ModelParams {
  MatT<S> tokenEmbedding;     // [input vocab, d_model]
  MatT<S> posEmbedding;       // [N, d_model]
  MatT<S> queryPosEmbedding;  // Translate only: [N, d_model] target positions; else empty
  std::vector<LayerParams<S>> layers;
  MatT<S> wOut;  // [d_model, output vocab]
  MatT<S> bOut;  // [1, output vocab]

  /// Visits every parameter with a stable name, e.g. "layer0.head1.w_q",
  /// "layer1.mlp.w_in", "token_embedding", "w_out" (the names of the torch fixture).
  void forEach(const std::function<void(const std::string&, MatT<S>&)>& f);
  void forEach(const std::function<void(const std::string&, const MatT<S>&)>& f) const;
  /// Same shapes, all zeros.
  ModelParams zerosLike() const;
  template <class T>
  ModelParams<T> cast() const;
};

/// Seeded initial parameters for a (valid) config.
ModelParams<float> initModelParams(const TrainConfig& c, uint64_t seed);

/// What one forward(+backward) pass returns.
template <class S>
struct PassResult {
  S loss = 0;           // total: cross-entropy + entropyWeight * mean entropy
  S crossEntropy = 0;   // mean over batch and scored positions
  S meanEntropy = 0;    // mean row entropy (nats) over batch, layers, heads, rows
  int correct = 0;      // argmax == target, counted over batch and positions
  int total = 0;        // scored positions (targets other than kIgnoredTarget)
  std::vector<S> headEntropy;  // [layers*heads] mean row entropy over batch and rows
  /// [layers][heads] maps of batch item 0 (only when requested).
  std::vector<std::vector<MatT<S>>> maps;
};

/// Buffers reused by repeated passes (a training loop): every intermediate keeps
/// its storage between steps, since fresh memory is slow to touch on these
/// machines (docs/performance.md). One workspace per thread; any config and shapes.
template <class S>
class ModelWorkspace {
 public:
  ModelWorkspace();
  ~ModelWorkspace();
  ModelWorkspace(const ModelWorkspace&) = delete;
  ModelWorkspace& operator=(const ModelWorkspace&) = delete;
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Forward only (no gradients). `wantMaps` fills PassResult::maps.
template <class S>
PassResult<S> forward(const TrainConfig& c, const ModelParams<S>& p, const TaskBatch& b, bool wantMaps,
                      ModelWorkspace<S>* workspace = nullptr);

/// Forward and backward: gradients of PassResult::loss w.r.t. every parameter into
/// `grads` (reshaped to the parameters' shapes when they differ, then overwritten).
template <class S>
PassResult<S> forwardBackward(const TrainConfig& c, const ModelParams<S>& p, const TaskBatch& b,
                              ModelParams<S>& grads, bool wantMaps = false, ModelWorkspace<S>* workspace = nullptr);

}  // namespace attn::train
