// The quantized-activation product (gguf/quantized_dot.h): ggml's Q8_0 activation quantization
// and block dot product on a case worked by hand; this engine copy's kernel (AVX-512 VNNI,
// AVX-512, AVX2, or the scalar reference itself in the baseline copy) against the scalar
// reference bit for bit on random blocks, odd token counts and row tails; and linear() with the
// setting on against the f32 product with the dequantized weights, within the bound the
// activations' rounding allows.
#include "attn/models/gguf/quantized_dot.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "attn/io/float_convert.h"

namespace attn::models::gguf {
namespace {

/// `rows` x `cols` Q8_0 weights: random int8 in [-128, 127] (-128 too: a file may hold it) and
/// random f16 scales.
std::vector<char> randomQ8Matrix(std::mt19937& rng, int64_t rows, int64_t cols) {
  std::uniform_int_distribution<int> q(-128, 127);
  std::uniform_real_distribution<float> d(1e-4f, 0.02f);
  std::vector<char> m(static_cast<size_t>(rows * cols / 32 * 34));
  for (size_t b = 0; b < m.size(); b += 34) {
    const uint16_t h = attn::floatToHalf(d(rng));
    std::memcpy(&m[b], &h, 2);
    for (int k = 0; k < 32; ++k) m[b + 2 + static_cast<size_t>(k)] = static_cast<char>(q(rng));
  }
  return m;
}

Mat randomActivations(std::mt19937& rng, int64_t rows, int64_t cols) {
  std::normal_distribution<float> n(0.0f, 1.0f);
  Mat x(rows, cols);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = n(rng) * (i % 7 == 0 ? 8.0f : 1.0f);
  return x;
}

TEST(QuantizedDot, HandComputedBlock) {
  // amax 1: id = 127, so 1 -> 127, -0.5 -> -63.5 -> -64 (ties to even), 0.25 -> 31.75 -> 32.
  std::vector<float> x(32, 0.0f);
  x[0] = 1.0f, x[1] = -0.5f, x[2] = 0.25f;
  Q8Rows q;
  quantizeRowsQ8(x.data(), 1, 32, 32, q);
  EXPECT_EQ(q.q[0], 127);
  EXPECT_EQ(q.q[1], -64);
  EXPECT_EQ(q.q[2], 32);
  EXPECT_EQ(q.q[3], 0);
  EXPECT_EQ(q.sum[0], 95);
  // d = 1/127 rounded to f16: 1.0078125 * 2^-7 (mantissa 1032/1024).
  EXPECT_EQ(q.d[0], 1032.0f / 131072.0f);
  // A weight block with d = 0.5 and q = 2, 4, -8: 127*2 - 64*4 - 32*8 = -258.
  std::vector<char> w(34, 0);
  const uint16_t half = 0x3800;  // 0.5
  std::memcpy(w.data(), &half, 2);
  w[2] = 2, w[3] = 4, w[4] = -8;
  EXPECT_EQ(blockDotQ8_0(q.q.data(), w.data()), -258);
  float y = 0;
  quantizedProductReference(q, w.data(), 34, 0, 1, &y, 1);
  EXPECT_EQ(y, -258.0f * (1032.0f / 131072.0f) * 0.5f);  // -1.01568603515625, exact
  float z = 0;
  quantizedProduct(q, w.data(), 34, 0, 1, &z, 1);
  EXPECT_EQ(z, y);
}

TEST(QuantizedDot, ZeroNanAndInfinityQuantizeWithoutFault) {
  std::vector<float> x(64, 0.0f);
  x[32] = NAN, x[33] = INFINITY, x[34] = -1.0f;
  Q8Rows q;
  quantizeRowsQ8(x.data(), 1, 64, 64, q);
  EXPECT_EQ(q.d[0], 0.0f);  // a block of zeros
  for (int k = 0; k < 32; ++k) EXPECT_EQ(q.q[static_cast<size_t>(k)], 0);
  for (int k = 32; k < 64; ++k) EXPECT_GE(q.q[static_cast<size_t>(k)], -127);
}

TEST(QuantizedDot, KernelEqualsScalarReferenceBitForBit) {
  std::mt19937 rng(7);
  int cases = 0;
  for (int64_t tokens : {1, 2, 3, 4, 8, 13, 17})  // under 4 tokens: the kernel without the repack
    for (int64_t cols : {32, 96, 512})
      for (int64_t rows : {1, 5, 16, 17, 40}) {
        const Mat x = randomActivations(rng, tokens, cols);
        const std::vector<char> w = randomQ8Matrix(rng, rows + 3, cols);
        Q8Rows q;
        quantizeRowsQ8(x.data(), tokens, cols, cols, q);
        const int64_t r0 = 2, m = rows, ldy = rows + 1;  // an offset first row and a wider y
        std::vector<float> ref(static_cast<size_t>(tokens * ldy), -7.0f), got = ref;
        quantizedProductReference(q, w.data(), cols / 32 * 34, r0, m, ref.data(), ldy);
        quantizedProduct(q, w.data(), cols / 32 * 34, r0, m, got.data(), ldy);
        ASSERT_EQ(std::memcmp(ref.data(), got.data(), ref.size() * sizeof(float)), 0)
            << tokens << " tokens, " << cols << " columns, " << rows << " rows (" << quantizedDotKernel()
            << ")";
        ++cases;
      }
  RecordProperty("kernel", quantizedDotKernel());
  EXPECT_EQ(cases, 105);
}

TEST(QuantizedDot, LinearWithinTheActivationRoundingOfTheDequantizedProduct) {
  std::mt19937 rng(11);
  const int64_t n = 9, K = 256, out = 70;
  const Mat x = randomActivations(rng, n, K);
  const std::vector<char> w = randomQ8Matrix(rng, out, K);
  LinearWeight l;
  l.w.rows = out, l.w.cols = K;
  l.w.quant = w.data(), l.w.quantType = 8, l.w.quantRowBytes = K / 32 * 34;
  std::vector<float> bias(static_cast<size_t>(out));
  for (size_t j = 0; j < bias.size(); ++j) bias[j] = 0.1f * static_cast<float>(j);
  l.b.data = bias.data(), l.b.rows = 1, l.b.cols = out;
  Mat on, off;
  {
    const QuantizedDotScope scope(false);
    EXPECT_FALSE(quantizedDotEnabled());
    linear(x, l, off);
  }
  EXPECT_TRUE(quantizedDotEnabled());
  linear(x, l, on);
  ASSERT_EQ(on.rows(), n);
  ASSERT_EQ(on.cols(), out);
  // |x - q d16| <= d (1/2 + 127 * 2^-11) per value, d = the block's amax / 127 (rounding to the
  // integer, then d to f16); the bound is that times sum |w|, plus f32 rounding of both sums.
  std::vector<float> wf(static_cast<size_t>(K));
  double largest = 0;
  for (int64_t j = 0; j < out; ++j) {
    l.w.rowTo(j, wf.data());
    for (int64_t i = 0; i < n; ++i) {
      double bound = 0, magnitude = 0;
      for (int64_t b = 0; b < K / 32; ++b) {
        double amax = 0, wsum = 0;
        for (int64_t k = b * 32; k < b * 32 + 32; ++k) {
          amax = std::max(amax, std::fabs(static_cast<double>(x(i, k))));
          wsum += std::fabs(wf[static_cast<size_t>(k)]);
          magnitude += std::fabs(wf[static_cast<size_t>(k)] * x(i, k));
        }
        bound += amax / 127 * (0.5 + 127.0 / 2048) * wsum;
      }
      bound += 1e-6 * magnitude + 1e-6;
      const double diff = std::fabs(static_cast<double>(on(i, j)) - off(i, j));
      EXPECT_LE(diff, bound) << i << ", " << j;
      largest = std::max(largest, diff);
    }
  }
  EXPECT_GT(largest, 0.0) << "the setting on gave the f32 product: the quantized path did not run";
}

}  // namespace
}  // namespace attn::models::gguf
