#pragma once
// The step-through of one query row of one head: every number the classroom
// view shows, recomputed here from the head's q, k, v so the view never does
// arithmetic itself (and a test can check each step by hand).
//
// Scaled dot-product attention, Vaswani et al. 2017, eq. (1):
//   s_j = q . k_j,  s_j / sqrt(d_k),  / T,  + bias_j,  -inf where masked,
//   a = softmax(s),  o = sum_j a_j v_j.
// Additive attention, Bahdanau et al. 2015, eq. (6) in the W form of the
// design doc: s_j = v^T tanh(W_q^T q + W_k^T k_j).
// General (bilinear), Luong et al. 2015, eq. (8): s_j = (q^T W) . k_j.
// Cosine: s_j = (q / |q|) . (k_j / |k_j|), as in the engine's cosineScores.
#include <cstdint>
#include <vector>

#include "attn/engine.h"
#include "attn/spec.h"
#include "attn/status.h"
#include "attn/tensor.h"

namespace attn {

/// One step of the walk, in the order it is shown.
enum class StepKind {
  QueryAndKeys,        // q and every k_j
  BilinearProjection,  // general: u = q^T W
  CosineNormalize,     // cosine: q / |q| and k_j / |k_j|
  RawScores,           // s_j = q . k_j (u . k_j for general, unit vectors for cosine)
  AdditiveProjections, // W_q^T q and W_k^T k_j
  AdditiveTanh,        // tanh(W_q^T q + W_k^T k_j)
  AdditiveScores,      // s_j = v . tanh(...)
  Scale,               // s_j / sqrt(d_k)
  Temperature,         // s_j / T
  PositionalBias,      // s_j + b_j
  Mask,                // -inf where key j is hidden
  Softmax,             // e^(s_j - max) / sum
  WeightedSum,         // a_j v_j
  Output,              // o = sum_j a_j v_j
};

struct StepThrough {
  int query = 0;
  bool additive = false;
  bool general = false;     // bilinear: raw scores are (q^T W) . k_j
  bool cosine = false;      // cosine: raw scores are unit-vector dot products
  bool scaled = false;      // scaled dot: divides by sqrt(d_k)
  float scale = 1.0f;       // 1/sqrt(d_k) or 1
  float temperature = 1.0f;
  Vec q;                    // [d_k]
  Mat k;                    // [Nk, d_k]
  Mat v;                    // [Nk, d_v]
  // Additive path only (empty otherwise).
  Vec wqQ;                  // W_q^T q            [h]
  Mat wkK;                  // rows W_k^T k_j     [Nk, h]
  Mat tanhSum;              // rows tanh(...)     [Nk, h]
  Vec vAdd;                 // v                  [h]
  // General path only: u = q^T W [dk_k].
  Vec qW;
  // Cosine path only: |q|, |k_j| and the unit vectors.
  float qNorm = 0.0f;
  Vec kNorms;               // [Nk]
  Vec qUnit;                // [d_k]
  Mat kUnit;                // [Nk, d_k]

  Vec rawScores;            // score(q, k_j)
  Vec scaledScores;         // after the scale
  Vec temperedScores;       // after the temperature
  Vec bias;                 // positional bias (empty: none)
  Vec biasedScores;         // after the bias
  std::vector<uint8_t> allowed;  // 1 = key j visible
  Vec maskedScores;         // -inf where hidden
  float rowMax = 0.0f;      // max over visible keys (the softmax shift)
  Vec exps;                 // e^(s_j - max), exactly 0 where hidden
  double expSum = 0.0;
  Vec weights;              // softmax
  Mat weightedValues;       // rows a_j v_j  [Nk, d_v]
  Vec output;               // [d_v]
  bool fullyMasked = false; // every key hidden: weights all 0

  /// The steps that apply to this configuration, in order (e.g. no Scale
  /// for plain dot, no PositionalBias without a bias).
  std::vector<StepKind> steps() const;
};

/// Walks query row `query` of a head the engine computed with `spec` (dot,
/// scaled dot, general, cosine, or additive with the head's scoreParams). Errors name the row
/// when it is out of range, or the mechanism when it has no walk yet.
Result<StepThrough> stepThrough(const HeadResult& head, const AttentionSpec& spec, int query);

/// The additive walk for the same head, given its score parameters
/// W_q [d_k, h], W_k [d_k, h], v [h] and the optional bias b [h] inside the tanh.
Result<StepThrough> additiveStepThrough(const HeadResult& head, const Mat& wAddQ, const Mat& wAddK,
                                        const Vec& vAdd, const AttentionSpec& spec, int query,
                                        const Vec& bAdd = Vec());

}  // namespace attn
