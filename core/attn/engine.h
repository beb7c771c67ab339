#pragma once
// Engine::run: embeddings or projected Q/K/V in, per-head logits, weights,
// outputs and the intermediates the step-through view shows out.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attn/engine/scores.h"
#include "attn/spec.h"
#include "attn/status.h"
#include "attn/tensor.h"

namespace attn {

/// What the engine attends over. Either embeddings `x` (self) / `x` + `xKv`
/// (cross), projected with loaded or seeded W_Q/W_K/W_V/W_O; or per-head
/// projected `q`, `k`, `v` used as they are.
struct AttentionInput {
  std::vector<std::string> queryTokens;
  std::vector<std::string> keyTokens;  // empty for self-attention
  Mat x;                               // [Nq, d_model]
  Mat xKv;                             // [Nk, d_kv]; empty for self-attention (d_kv may differ
                                       // from d_model, as torch's kdim/vdim)
  std::vector<Mat> q, k, v;            // per head [Nq, dk], [Nk, dk], [Nk, dv]
  // Loaded projections ([d_in, d_out]); empty = seeded init from the spec.
  Mat wQ, wK, wV, wO;
  // Loaded projection biases ([d_out]); any present implies biased projections.
  Vec bQ, bK, bV, bO;
  // Loaded per-head score parameters (empty = seeded init from the spec):
  std::vector<Mat> wBilinear;  // general: [dk_q, dk_k] per head, score q^T W k
  std::vector<Mat> wAddQ;      // additive: [dk_q, hidden] per head
  std::vector<Mat> wAddK;      // additive: [dk_k, hidden] per head
  std::vector<Vec> vAdd;       // additive: [hidden] per head
  std::vector<Vec> bAdd;       // additive: [hidden] per head, inside the tanh (optional)
  int gridCols = 0;            // image patches (core/attn/vision): grid width; 0 = a sequence
  // Values read and checked but not kept (loadInputFile with keepValues =
  // false, for commands that never read them): v is empty and this is the
  // shape it had; heads = 0 when v is kept. The streamed analysis runs on such
  // an input; runAttention, which computes outputs, refuses it.
  struct ValueShape {
    size_t heads = 0;
    Eigen::Index rows = 0, cols = 0;
  };
  ValueShape droppedV;
  // Queries read and checked but not kept (loadInputFile with keepQueries =
  // false): the streamed analysis reads them again from the file a block of
  // rows at a time (at N = 32768 q alone is 100 MB). q then holds one
  // 0 x d_k matrix per head, droppedQ the shape they had and queryFile where
  // their little-endian float32 values lie, [heads, rows, d_k] in C order.
  // Only analyzeAttentionStreamed runs on such an input.
  ValueShape droppedQ;
  struct StoredRows {
    std::string path;
    uint64_t offset = 0;
  };
  StoredRows queryFile;

  bool isProjected() const { return !q.empty(); }
  bool valuesDropped() const { return droppedV.heads > 0; }
  bool queriesDropped() const { return droppedQ.heads > 0; }
  /// Query rows: droppedQ's when the queries were not kept.
  Eigen::Index queryRows() const { return queriesDropped() ? droppedQ.rows : (q.empty() ? x.rows() : q[0].rows()); }
  bool isCross() const { return xKv.size() > 0 || !keyTokens.empty(); }
};

/// How far an approximate execution path is from exact softmax attention.
struct ApproxError {
  double weightsFrobenius = 0;  // ||A - A_exact||_F (NaN for linformer's N x k map)
  double meanRowKl = 0;         // mean_i KL(exact_i || approx_i) in nats (NaN for linformer)
  double outputRelError = 0;    // ||O - O_exact||_F / ||O_exact||_F
};

/// One head's computation, every step kept.
struct HeadResult {
  Mat q, k, v;          // the head's projected inputs
  ScoreParams scoreParams;  // the score function's parameters used (loaded or seeded)
  Mat rawLogits;        // score(q, k)
  Mat scaledLogits;     // after 1/sqrt(d_k) (scaled_dot) and temperature
  Mat logitBias;        // positional bias added to scaled logits (empty: none)
  Mat maskedLogits;     // scaled logits (+ bias) with -inf where masked
  Mat weights;          // softmax rows; exactly 0 where masked
  Mat output;           // weights * v  [Nq, dv]
  Vec entropy;          // per row, nats, over unmasked keys
  std::vector<int> fullyMaskedRows;  // rows whose every key is masked (all-zero weights)
  // Tiled/sparse paths fill only weights (or none: metrics only), output, entropy and rowMax.
  Vec rowMax;                        // tiled/sparse: max allowed score per row
  std::optional<ApproxError> approxError;  // performer, linear_elu, linformer
};

struct AttentionResult {
  std::vector<std::string> queryTokens;
  std::vector<std::string> keyTokens;  // equals queryTokens for self-attention
  std::vector<HeadResult> heads;
  Mat concatOutput;  // [Nq, H * dv]
  Mat output;        // concatOutput * W_O (+ b_O)  [Nq, d_model]
  // The projections used (loaded or seeded); empty where not applied
  // (projected q/k/v input: W_Q/W_K/W_V; W_O unless loaded).
  Mat wQ, wK, wV, wO;
  Vec bQ, bK, bV, bO;  // empty: no bias
  Mask mask;  // the mask applied, tokens bound: draw it with mask.bitmap(nq(), nk())
  std::string backendUsed;
  std::string execUsed;  // the execution path that ran (what `auto` picked)
  std::vector<std::string> warnings;

  int numHeads() const { return static_cast<int>(heads.size()); }
  int nq() const { return heads.empty() ? 0 : static_cast<int>(heads[0].output.rows()); }
  int nk() const { return heads.empty() ? 0 : static_cast<int>(heads[0].weights.cols()); }
};

/// Builds the engine input for a sentence: tokens, seeded embeddings.
AttentionInput inputFromTokens(std::vector<std::string> tokens, int dModel, uint64_t seed,
                               std::vector<std::string> keyTokens = {});

/// Runs attention. Errors name the array or option and the fault.
Result<AttentionResult> runAttention(const AttentionInput& input, const AttentionSpec& spec);

}  // namespace attn
