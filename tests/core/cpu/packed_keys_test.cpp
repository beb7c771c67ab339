// Scores against pre-packed keys: every score is the fused
// multiply-add chain over the depth in order, whatever block of rows and range
// of keys is asked for (so the tiled kernel's tiles and the streamed
// analysis' row blocks give the same bits), and within float rounding of a
// double-precision dot product.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "attn/cpu/packed_keys.h"

namespace attn {
namespace {

Mat randomMat(int rows, int cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0f, 1.0f);
  Mat m(rows, cols);
  for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] = g(rng);
  return m;
}

TEST(PackedKeys, ScoresAreTheOrderedMultiplyAddChainForAnyRowsAndKeyRange) {
  for (int dk : {1, 7, 16, 64, 80}) {
    for (int nk : {1, 15, 47, 48, 49, 230, 1000}) {
      const Mat k = randomMat(nk, dk, 17u + static_cast<uint64_t>(dk * nk));
      const PackedKeys packed(k);
      EXPECT_EQ(packed.keys(), nk);
      EXPECT_EQ(packed.depth(), dk);
      const Mat qs = randomMat(63, dk, 5u + static_cast<uint64_t>(dk)) * 0.125f;
      for (int rows : {1, 3, 8, 9, 61}) {
        for (auto [j0, j1] : {std::pair{0, nk}, std::pair{nk / 3, nk}, std::pair{0, (nk + 1) / 2}}) {
          if (j1 <= j0) continue;
          SCOPED_TRACE(testing::Message() << "dk " << dk << " keys " << nk << " rows " << rows << " [" << j0 << ", "
                                          << j1 << ")");
          // A block of rows from the middle of a bigger matrix, into a wider
          // buffer: strides as the tiled kernel and the streamed analysis use them.
          const Eigen::Ref<const Mat> block = qs.middleRows(1, rows);
          const Eigen::Index ld = j1 - j0 + 5;
          std::vector<float> out(static_cast<size_t>(rows * ld), -7.0f);
          packed.scores(block, out.data(), ld, j0, j1);
          for (int a = 0; a < rows; ++a) {
            for (int j = j0; j < j1; ++j) {
              float chain = 0.0f;
              double ref = 0.0;
              for (int d = 0; d < dk; ++d) {
                if (PackedKeys::fusedMultiplyAdd()) {
                  chain = std::fma(k(j, d), block(a, d), chain);
                } else {
                  const float product = k(j, d) * block(a, d);
                  chain = product + chain;
                }
                ref += static_cast<double>(block(a, d)) * k(j, d);
              }
              const float got = out[static_cast<size_t>(a * ld + (j - j0))];
              ASSERT_EQ(got, chain) << a << ", " << j;
              ASSERT_NEAR(got, ref, 1e-5 * (1.0 + std::abs(ref))) << a << ", " << j;
            }
            for (Eigen::Index j = j1 - j0; j < ld; ++j) ASSERT_EQ(out[static_cast<size_t>(a * ld + j)], -7.0f);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace attn
