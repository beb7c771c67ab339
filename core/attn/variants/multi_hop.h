#pragma once
// Multi-hop attention (Sukhbaatar et al. 2015, "End-To-End Memory Networks",
// sec. 2.2): attention is applied K times over the same keys and values, the
// query of each hop updated by the previous hop's output,
//   q_(t+1) = q_t + o_t            (adjacent / layer-wise with H = I)
//   q_(t+1) = q_t H + o_t          (layer-wise, a linear map H [d, d])
// with a_t = softmax(s(q_t, K) [masked]) and o_t = a_t V. One map per hop shows
// the focus move; its entropy says whether the focus sharpens.
#include <cstdint>
#include <vector>

#include "attn/engine/init.h"
#include "attn/status.h"
#include "attn/tensor.h"

namespace attn::variants {

enum class HopUpdate { Add, Linear };

struct Hop {
  Mat query;    // q_t [Nq, d]
  Mat logits;   // scale * q_t K^T, -inf where hidden
  Mat weights;  // [Nq, Nk]
  Mat output;   // o_t [Nq, dv]
  Vec entropy;  // per row, nats
  double meanEntropy = 0;
};

struct MultiHopHead {
  std::vector<Hop> hops;
};

/// Seeded H [d, d] for the linear update (one per head, its own stream).
Mat seededHopMap(int d, int head, InitScheme init, uint64_t seed);

/// Runs `hops` hops for one head: q0 [Nq, d], k [Nk, d], v [Nk, d] (the update
/// needs dv = d), `allowed` a keep bitmap [Nq * Nk] (empty: every key), logits
/// scaled by `scale` (1/sqrt(d) for scaled dot), plus `bias` [Nq, Nk] when not
/// empty (a positional logit bias). `h` is used for HopUpdate::Linear.
Result<MultiHopHead> multiHopAttention(const Mat& q0, const Mat& k, const Mat& v, const std::vector<uint8_t>& allowed,
                                       int hops, HopUpdate update, const Mat& h, float scale, const Mat& bias = Mat());

}  // namespace attn::variants
