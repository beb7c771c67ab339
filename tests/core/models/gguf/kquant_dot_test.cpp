// The K-quant products on 8-bit activations (gguf/kquant_dot.h): ggml's Q8_K activation
// quantization and the Q4_K / Q6_K super-block dot products on blocks worked by hand; the scalar
// reference against the dequantized weights (dequantize(), ggml's own decoding) times the
// dequantized activations; this engine copy's kernel against the scalar reference bit for bit on
// random blocks, odd token counts and row tails; and linear() taking the path when it is on.
#include "attn/models/gguf/kquant_dot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "attn/io/float_convert.h"
#include "attn/models/gguf/dequantize.h"
#include "attn/models/gguf/quantized_dot.h"
#include "attn/models/nn_ops.h"

namespace attn::models::gguf {
namespace {

constexpr uint32_t kQ4K = 12, kQ6K = 14;

int64_t kBlockBytes(uint32_t type) { return type == kQ4K ? 144 : 210; }

void putHalf(char* p, float v) {
  const uint16_t h = attn::floatToHalf(v);
  std::memcpy(p, &h, 2);
}

/// Random super-blocks: every bit pattern of the quants and scales (ggml writes all of them),
/// finite random f16 super-block scales.
std::vector<char> randomKMatrix(std::mt19937& rng, uint32_t type, int64_t rows, int64_t cols) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> d(1e-4f, 0.02f);
  const int64_t bytes = kBlockBytes(type);
  std::vector<char> m(static_cast<size_t>(rows * cols / kSuperBlock * bytes));
  for (char& c : m) c = static_cast<char>(byte(rng));
  for (size_t b = 0; b < m.size(); b += static_cast<size_t>(bytes)) {
    if (type == kQ4K) {
      putHalf(&m[b], d(rng)), putHalf(&m[b + 2], d(rng));
    } else {
      putHalf(&m[b + 208], d(rng));
    }
  }
  return m;
}

Mat randomKActivations(std::mt19937& rng, int64_t rows, int64_t cols) {
  std::normal_distribution<float> n(0.0f, 1.0f);
  Mat x(rows, cols);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = n(rng) * (i % 11 == 0 ? 6.0f : 1.0f);
  return x;
}

/// x[0] = -2 has the largest magnitude: iscale = -127 / -2 = 63.5, so -2 -> -127, 1 -> 63.5 -> 64
/// (ties to even), 0.5 -> 31.75 -> 32; d = 1 / 63.5.
Q8KRows handTokens() {
  std::vector<float> x(256, 0.0f);
  x[0] = -2.0f, x[1] = 1.0f, x[2] = 0.5f;
  Q8KRows q;
  quantizeRowsQ8K(x.data(), 1, 256, 256, q);
  return q;
}

TEST(KQuantDot, HandComputedActivationQuantization) {
  const Q8KRows q = handTokens();
  EXPECT_EQ(q.q[0], -127);
  EXPECT_EQ(q.q[1], 64);
  EXPECT_EQ(q.q[2], 32);
  EXPECT_EQ(q.q[3], 0);
  EXPECT_EQ(q.d[0], 1.0f / 63.5f);
  EXPECT_EQ(q.bsum16[0], -31);
  EXPECT_EQ(q.bsum16[1], 0);
  EXPECT_EQ(q.pairSums[0], static_cast<int32_t>(static_cast<uint16_t>(-31)));
  // The largest value positive: it maps to -127 and d is negative, as in ggml.
  std::vector<float> y(256, 0.0f);
  y[5] = 4.0f, y[6] = -1.0f;
  Q8KRows p;
  quantizeRowsQ8K(y.data(), 1, 256, 256, p);
  EXPECT_EQ(p.q[5], -127);
  EXPECT_EQ(p.q[6], 32);  // -1 * -31.75 = 31.75 -> 32
  EXPECT_EQ(p.d[0], 1.0f / (-127.0f / 4.0f));
  std::vector<float> zeros(512, 0.0f);
  zeros[300] = NAN;
  Q8KRows z;
  quantizeRowsQ8K(zeros.data(), 1, 512, 512, z);
  EXPECT_EQ(z.d[0], 0.0f);
  EXPECT_EQ(z.d[1], 0.0f);  // NaN alone: no magnitude above 0
  for (int8_t v : z.q) EXPECT_GE(v, -127);
}

// ggml's quantize_row_q8_K_ref, written out here: the first value of the largest magnitude maps to
// -127, every value to nearbyint(iscale * x) clamped to [-127, 127], d = 1 / iscale.
void q8KByTheReference(const float* x, int64_t cols, std::vector<int8_t>& q, std::vector<float>& d,
                       std::vector<int32_t>& bsum16) {
  for (int64_t b = 0; b < cols / 256; ++b) {
    const float* v = x + b * 256;
    float amax = 0, max = 0;
    for (int j = 0; j < 256; ++j)
      if (std::fabs(v[j]) > amax) amax = std::fabs(v[j]), max = v[j];
    const float iscale = amax == 0 ? 0.0f : -127.0f / max;
    for (int j = 0; j < 256; ++j)
      q.push_back(amax == 0
                      ? 0
                      : static_cast<int8_t>(std::min(127, static_cast<int>(std::nearbyint(iscale * v[j])))));
    d.push_back(amax == 0 ? 0.0f : 1.0f / iscale);
    for (int j = 0; j < 16; ++j) {
      int32_t s = 0;
      for (int k = 0; k < 16; ++k) s += q[q.size() - 256 + static_cast<size_t>(j * 16 + k)];
      bsum16.push_back(s);
    }
  }
}

TEST(KQuantDot, ActivationQuantizationEqualsTheReferenceOnEveryRow) {
  // Rows split over the threads and each engine copy's block routine (16 values a time on
  // AVX-512): the same bytes as the reference, on a strided input with ties (m + 0.5 after the
  // scale), a largest magnitude repeated with both signs, and an all-zero block.
  std::mt19937 rng(5);
  const int64_t rows = 70, cols = 768, stride = 800;
  Mat x = randomKActivations(rng, rows, stride);
  for (int64_t i = 0; i < rows; ++i) {
    float* r = x.data() + i * stride;
    if (i % 3 == 0) {  // largest 127: iscale -1 exactly, so m + 0.5 is a tie (to even)
      r[0] = 127.0f;
      for (int j = 1; j < 256; ++j) r[j] = static_cast<float>(j % 200 - 100) + 0.5f;
    }
    if (i % 5 == 1) r[300] = 9.0f, r[400] = -9.0f;
    if (i % 7 == 2) std::fill(r + 512, r + 768, 0.0f);
  }
  Q8KRows q;
  quantizeRowsQ8K(x.data(), rows, cols, stride, q);
  std::vector<int8_t> wantQ;
  std::vector<float> wantD;
  std::vector<int32_t> wantSums;
  for (int64_t i = 0; i < rows; ++i) q8KByTheReference(x.data() + i * stride, cols, wantQ, wantD, wantSums);
  ASSERT_EQ(q.q.size(), wantQ.size());
  EXPECT_EQ(q.q, wantQ);
  EXPECT_EQ(q.d, wantD);
  EXPECT_EQ(q.bsum16, wantSums);
  EXPECT_EQ(q.d[static_cast<size_t>(2 * 3 + 2)], 0.0f);  // row 2's zero block
}

TEST(KQuantDot, HandComputedQ4KBlock) {
  // d = 1, dmin = 0.5, sub-block 0: scale 2, minimum 3 (the others 0); values 1 and 3 first.
  std::vector<char> w(144, 0);
  putHalf(&w[0], 1.0f), putHalf(&w[2], 0.5f);
  w[4] = 2, w[8] = 3, w[16] = 0x01, w[17] = 0x03;
  std::vector<float> deq(256);
  ASSERT_TRUE(dequantize(kQ4K, w.data(), deq.data(), 256));
  EXPECT_EQ(deq[0], 0.5f);   // 1 * 2 - 0.5 * 3
  EXPECT_EQ(deq[1], 4.5f);   // 3 * 2 - 1.5
  EXPECT_EQ(deq[2], -1.5f);  // 0 * 2 - 1.5
  EXPECT_EQ(deq[32], 0.0f);
  // sumi = 2 (1 * -127 + 3 * 64) = 130; summ = 3 (-127 + 64 + 32) = -93.
  const Q8KRows q = handTokens();
  const float dx = 1.0f / 63.5f;
  float ref = 0, got = 0;
  kquantProductReference(kQ4K, q, w.data(), 144, 0, 1, &ref, 1);
  EXPECT_FLOAT_EQ(ref, 130.0f * (dx * 1.0f) - (-93.0f) * (dx * 0.5f));
  // The same from the dequantized values: 0.5 (-127) + 4.5 (64) - 1.5 (32) = 176.5 = 130 + 46.5.
  EXPECT_NEAR(ref, 176.5 / 63.5, 1e-6);
  kquantProduct(kQ4K, q, w.data(), 144, 0, 1, &got, 1);
  EXPECT_EQ(got, ref);
}

TEST(KQuantDot, HandComputedQ6KBlock) {
  // d = 0.5, sub-block 0 scale 3: value 0 stored as 40 (8 after the -32), values 1..15 as 32 (0).
  std::vector<char> w(210, 0);
  putHalf(&w[208], 0.5f);
  w[192] = 3;
  for (int l = 0; l < 16; ++l) w[128 + l] = 2;  // qh bits 0-1: the value's bits 4-5
  w[0] = 8;
  std::vector<float> deq(256);
  ASSERT_TRUE(dequantize(kQ6K, w.data(), deq.data(), 256));
  EXPECT_EQ(deq[0], 12.0f);  // 0.5 * 3 * 8
  EXPECT_EQ(deq[1], 0.0f);
  const Q8KRows q = handTokens();
  float ref = 0, got = 0;
  kquantProductReference(kQ6K, q, w.data(), 210, 0, 1, &ref, 1);
  EXPECT_FLOAT_EQ(ref, -3048.0f * ((1.0f / 63.5f) * 0.5f));  // 3 * 8 * -127
  kquantProduct(kQ6K, q, w.data(), 210, 0, 1, &got, 1);
  EXPECT_EQ(got, ref);
}

TEST(KQuantDot, ReferenceIsTheDequantizedWeightsTimesTheRoundedActivations) {
  std::mt19937 rng(5);
  for (uint32_t type : {kQ4K, kQ6K}) {
    const int64_t tokens = 3, cols = 512, rows = 4, bytes = cols / kSuperBlock * kBlockBytes(type);
    const Mat x = randomKActivations(rng, tokens, cols);
    const std::vector<char> w = randomKMatrix(rng, type, rows, cols);
    Q8KRows q;
    quantizeRowsQ8K(x.data(), tokens, cols, cols, q);
    std::vector<float> y(static_cast<size_t>(tokens * rows)), wf(static_cast<size_t>(cols));
    kquantProductReference(type, q, w.data(), bytes, 0, rows, y.data(), rows);
    for (int64_t j = 0; j < rows; ++j) {
      ASSERT_TRUE(dequantize(type, w.data() + j * bytes, wf.data(), cols));
      for (int64_t i = 0; i < tokens; ++i) {
        double sum = 0, magnitude = 0;
        for (int64_t k = 0; k < cols; ++k) {
          const double xk =
              static_cast<double>(q.q[static_cast<size_t>(i * cols + k)]) * q.d[i * 2 + k / 256];
          sum += wf[static_cast<size_t>(k)] * xk;
          magnitude += std::fabs(wf[static_cast<size_t>(k)] * xk);
        }
        // f32 rounding: of the dequantized values, the scale products and the sums.
        EXPECT_NEAR(y[static_cast<size_t>(i * rows + j)], sum, 2e-6 * magnitude + 1e-7)
            << type << ": " << i << ", " << j;
      }
    }
  }
}

TEST(KQuantDot, KernelEqualsScalarReferenceBitForBit) {
  std::mt19937 rng(9);
  int cases = 0;
  for (uint32_t type : {kQ4K, kQ6K})
    for (int64_t tokens : {1, 2, 3, 4, 8, 13})  // under 4 tokens: the kernel without the repack
      for (int64_t cols : {256, 768})
        for (int64_t rows : {1, 5, 16, 17, 40}) {
          const Mat x = randomKActivations(rng, tokens, cols);
          const std::vector<char> w = randomKMatrix(rng, type, rows + 3, cols);
          Q8KRows q;
          quantizeRowsQ8K(x.data(), tokens, cols, cols, q);
          const int64_t r0 = 2, ldy = rows + 1, bytes = cols / kSuperBlock * kBlockBytes(type);
          std::vector<float> ref(static_cast<size_t>(tokens * ldy), -7.0f), got = ref;
          kquantProductReference(type, q, w.data(), bytes, r0, rows, ref.data(), ldy);
          kquantProduct(type, q, w.data(), bytes, r0, rows, got.data(), ldy);
          ASSERT_EQ(std::memcmp(ref.data(), got.data(), ref.size() * sizeof(float)), 0)
              << "type " << type << ", " << tokens << " tokens, " << cols << " columns, " << rows << " rows ("
              << quantizedDotKernel() << ")";
          ++cases;
        }
  RecordProperty("kernel", quantizedDotKernel());
  EXPECT_EQ(cases, 120);
}

TEST(KQuantDot, LinearTakesThePathWhenOn) {
  std::mt19937 rng(13);
  const int64_t n = 5, K = 512, out = 70;
  for (uint32_t type : {kQ4K, kQ6K}) {
    const Mat x = randomKActivations(rng, n, K);
    const std::vector<char> w = randomKMatrix(rng, type, out, K);
    LinearWeight l;
    l.w.rows = out, l.w.cols = K;
    l.w.quant = w.data(), l.w.quantType = type, l.w.quantRowBytes = K / kSuperBlock * kBlockBytes(type);
    Mat on, off;
    linear(x, l, on);
    {
      const QuantizedDotScope scope(false);
      linear(x, l, off);
    }
    Q8KRows q;
    quantizeRowsQ8K(x.data(), n, K, K, q);
    std::vector<float> ref(static_cast<size_t>(n * out));
    kquantProductReference(type, q, w.data(), l.w.quantRowBytes, 0, out, ref.data(), out);
    ASSERT_EQ(on.rows(), n);
    ASSERT_EQ(on.cols(), out);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < out; ++j)
        EXPECT_EQ(on(i, j), ref[static_cast<size_t>(i * out + j)]) << i << ", " << j;
    EXPECT_GT((on - off).cwiseAbs().maxCoeff(), 0.0f) << "the setting off gave the quantized product";
    EXPECT_LT((on - off).cwiseAbs().maxCoeff(), 0.05f * off.cwiseAbs().maxCoeff());
  }
}

}  // namespace
}  // namespace attn::models::gguf
