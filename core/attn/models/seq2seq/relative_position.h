#pragma once
// T5's bucketed relative position bias (Raffel et al. 2020, section 2.1; transformers'
// T5Attention._relative_position_bucket and compute_bias): each relative distance
// key - query falls in one of num_buckets buckets, exact for small distances and
// logarithmic up to max_distance (all farther ones share the last bucket); the encoder
// tells left from right (half of the buckets each), the decoder sees only the past. Each
// bucket has a learned scalar per head, added to the attention scores.
#include <vector>

#include "attn/models/model_weights.h"
#include "attn/tensor.h"

namespace attn::models {

/// The bucket of `relative` = key position - query position, in float32 as the PyTorch code
/// computes it (the log of distance / max_exact, truncated).
int relativePositionBucket(int relative, bool bidirectional, int numBuckets, int maxDistance);

/// bias[h] [m, n] = table[bucket(j - (firstQuery + i)), h] for query rows i < m, keys j < n;
/// table [numBuckets, heads].
void relativePositionBias(const WeightTensor& table, int firstQuery, int m, int n, bool bidirectional,
                          int maxDistance, std::vector<Mat>& bias);

}  // namespace attn::models
