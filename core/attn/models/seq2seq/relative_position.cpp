#include "attn/models/seq2seq/relative_position.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace attn::models {

int relativePositionBucket(int relative, bool bidirectional, int numBuckets, int maxDistance) {
  int bucket = 0, n = 0;
  if (bidirectional) {  // half of the buckets for keys to the right
    numBuckets /= 2;
    bucket = relative > 0 ? numBuckets : 0;
    n = std::abs(relative);
  } else {  // the decoder: only the past, the future as distance 0
    n = std::max(-relative, 0);
  }
  const int exact = numBuckets / 2;
  if (n < exact) return bucket + n;
  // max_exact + log(n / max_exact) / log(max_distance / max_exact) * (num_buckets - max_exact),
  // each step in float32 as the tensor ops run, the Python constant rounded to float.
  const float logRatio = std::log(static_cast<float>(n) / static_cast<float>(exact));
  const auto logSpan = static_cast<float>(std::log(static_cast<double>(maxDistance) / exact));
  const float scaled = logRatio / logSpan * static_cast<float>(numBuckets - exact);
  const int large = exact + static_cast<int>(scaled);
  return bucket + std::min(large, numBuckets - 1);
}

void relativePositionBias(const WeightTensor& table, int firstQuery, int m, int n, bool bidirectional,
                          int maxDistance, std::vector<Mat>& bias) {
  const int buckets = static_cast<int>(table.rows), heads = static_cast<int>(table.cols);
  bias.assign(static_cast<size_t>(heads), Mat(m, n));
  std::vector<float> row(static_cast<size_t>(heads));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const int b = relativePositionBucket(j - (firstQuery + i), bidirectional, buckets, maxDistance);
      table.rowTo(b, row.data());
      for (int h = 0; h < heads; ++h) bias[static_cast<size_t>(h)](i, j) = row[static_cast<size_t>(h)];
    }
}

}  // namespace attn::models
