#pragma once
// Segment-level recurrence with relative positions: Transformer-XL (Dai et al.
// 2019, sec. 3.2-3.3). A long sequence is cut into segments of L tokens; each
// segment's queries attend over [cached keys/values of the previous M tokens;
// the segment's own keys], causally, with the relative score of eq. (4)/sec. 3.3:
//
//   A_ij = q_i.k_j          (a) content
//        + q_i.r_(i-j)      (b) content-dependent position
//        + u.k_j            (c) global content bias
//        + v.r_(i-j)        (d) global position bias
//
// with q_i = x_i W_q, k_j = x_j W_k,E, r_d = R_d W_k,R (R the sinusoid of the
// distance d, [sin | cos] halves as the authors' code), u and v learned per head,
// all divided by sqrt(d_head) as in the authors' code. One layer: the memory is
// the previous tokens' inputs (the cached hidden states of the layer below).
#include <cstdint>
#include <vector>

#include "attn/engine/init.h"
#include "attn/status.h"
#include "attn/tensor.h"

namespace attn::variants {

/// One head's parameters: W_q, W_k,E, W_v, W_k,R [d_model, d_head]; u, v [d_head].
struct XlHeadParams {
  Mat wQ, wK, wV, wR;
  Vec u, v;
};

/// Seeded parameters for `heads` heads, each matrix from its own named stream.
std::vector<XlHeadParams> seededXlParams(int dModel, int heads, int dHead, InitScheme init, uint64_t seed);

/// R_d for d = 0..count-1 as rows [count, dModel]: [sin(d f_0..f_{D/2-1}) | cos(...)]
/// with f_i = 1 / 10000^(2i / dModel) (Transformer-XL's PositionalEmbedding).
Mat relativeSinusoid(int count, int dModel);

/// One segment of one head: queries [L, .], keys [memory; segment].
struct XlSegmentHead {
  Mat content, contentPosition, globalContent, globalPosition;  // terms (a)-(d), [L, M'+L]
  Mat logits;   // (a+b+c+d)/sqrt(d_head), -inf above the diagonal
  Mat weights;  // softmax rows, exactly 0 where hidden
  Mat output;   // weights * [v_mem; v_seg]  [L, d_head]
  Vec entropy;  // per row, nats
  float scale = 1.0f;  // 1/sqrt(d_head)
};

struct XlSegment {
  int start = 0;      // absolute index of the segment's first token
  int length = 0;     // L (the last segment may be shorter)
  int memStart = 0;   // absolute index of the first memory token
  int memLength = 0;  // M' = min(M, start)
  std::vector<XlSegmentHead> heads;
  int keyCount() const { return memLength + length; }
};

struct XlResult {
  int segmentLength = 0, memoryLength = 0;
  std::vector<XlSegment> segments;
  /// Every segment's rows placed at absolute key positions: [N, N] per head.
  std::vector<Mat> fullWeights;
};

/// Runs every segment of `x` [N, d_model]. Errors name the option at fault.
Result<XlResult> segmentMemoryAttention(const Mat& x, const std::vector<XlHeadParams>& params, int segmentLength,
                                        int memoryLength);

/// How far back token i can draw information after `layers` stacked layers
/// with the same segment length and memory (each layer's memory is the layer
/// below of the previous tokens, sec. 3.2): the earliest absolute index that
/// reaches token i, for every i. One layer reaches back to the memory start;
/// each further layer reaches about M further (the O(N x L) of fig. 2).
std::vector<int> xlEarliestReach(int n, int segmentLength, int memoryLength, int layers);

/// The step-through of query row `row` (0-based within the segment) of one
/// segment head: per key, the four terms, their sum, the scaled logit, the
/// weight; which keys are memory.
struct XlRowWalk {
  int segment = 0, row = 0, absoluteQuery = 0;
  int memLength = 0;
  float scale = 1.0f;  // 1/sqrt(d_head)
  std::vector<int> keyPositions;  // absolute positions of the keys
  std::vector<int> distances;     // i - j
  Vec a, b, c, d, sum, logits, weights;
  float rowMax = 0.0f;
  double memoryShare = 0.0;  // weight on memory keys
};
Result<XlRowWalk> xlRowWalk(const XlResult& r, int head, int segment, int row);

}  // namespace attn::variants
