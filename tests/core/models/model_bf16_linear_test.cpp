// BF16 weights kept in the mapping: the panel-blocked linear() (convert 128 output
// rows to f32, multiply against the tokens packed once, next panel, spread over threads) against a plain
// product over the same values in double, and the conversion against its definition; F32 weights
// read in place against the same plain product.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "attn/models/model_weights.h"
#include "attn/models/nn_ops.h"
#include "attn/engine/random.h"

namespace attn::models {
namespace {

uint16_t bf16Bits(float f) {  // truncation: the f32 the test compares with is exactly representable
  uint32_t u = 0;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>(u >> 16);
}

float fromBits(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f = 0;
  std::memcpy(&f, &u, 4);
  return f;
}

struct Bf16Matrix {
  std::vector<char> bytes;  // one byte of padding first: the mapping gives no alignment
  std::vector<float> values;
};

Bf16Matrix randomBf16(int64_t rows, int64_t cols, uint64_t seed) {
  SeededRng rng(seed);
  Bf16Matrix m;
  m.bytes.resize(static_cast<size_t>(rows * cols * 2 + 1));
  m.values.resize(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows * cols; ++i) {
    const uint16_t b = bf16Bits(static_cast<float>(rng.normal()));
    std::memcpy(&m.bytes[static_cast<size_t>(1 + 2 * i)], &b, 2);
    m.values[static_cast<size_t>(i)] = fromBits(b);
  }
  return m;
}

TEST(ModelBf16Linear, ConversionIsTheUpperHalfOfAnF32) {
  // Odd lengths reach the vector body and the scalar tail.
  for (int64_t n : {1, 7, 16, 37, 1000}) {
    const Bf16Matrix m = randomBf16(1, n, static_cast<uint64_t>(n));
    std::vector<float> out(static_cast<size_t>(n), -1.0f);
    bf16ToFloat(m.bytes.data() + 1, out.data(), n);
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(out[static_cast<size_t>(i)], m.values[static_cast<size_t>(i)]) << i;
  }
  const uint16_t special[4] = {0x3FC0, 0xC000, 0x7F80, 0x0001};  // 1.5, -2, +inf, smallest subnormal
  std::vector<float> out(4);
  bf16ToFloat(reinterpret_cast<const char*>(special), out.data(), 4);
  EXPECT_EQ(out[0], 1.5f);
  EXPECT_EQ(out[1], -2.0f);
  EXPECT_TRUE(std::isinf(out[2]) && out[2] > 0);
  EXPECT_EQ(out[3], fromBits(0x0001));
}

TEST(ModelBf16Linear, BlockedProductMatchesPlainProduct) {
  // Shapes around the panel size (128 rows): one partial panel, several with a partial
  // last one, one large enough to be shared among threads, and one whose depth (1500) spans
  // several of the GEMM's depth blocks (Eigen picks about 700 here), each a tile of the tokens
  // packed once and reused by every panel.
  struct Shape {
    int64_t n, in, out;
  };
  // On AVX-512 the token-tile GEMM takes the shapes with a depth that is a multiple of 16 and at
  // least 16 tokens: ViT-B's 197 tokens (a half tile of 16 at the end), 48 tokens (one 32-row tile
  // and one of 16) over a depth with a partial 384 block (1040), 12-column tiles with a remainder.
  for (const Shape s : {Shape{3, 5, 7}, Shape{17, 70, 300}, Shape{64, 256, 1000}, Shape{40, 1500, 130},
                        Shape{197, 768, 200}, Shape{48, 1040, 37}, Shape{16, 32, 12}}) {
    const Bf16Matrix w = randomBf16(s.out, s.in, 11);
    SeededRng rng(5);
    Mat x(s.n, s.in);
    for (int64_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(rng.normal());
    std::vector<float> bias(static_cast<size_t>(s.out));
    for (auto& b : bias) b = static_cast<float>(rng.normal());
    LinearWeight l;
    l.w.bf16 = w.bytes.data() + 1;
    l.w.rows = s.out;
    l.w.cols = s.in;
    l.b = {bias.data(), 1, s.out};
    Mat y;
    linear(x, l, y);
    ASSERT_EQ(y.rows(), s.n);
    ASSERT_EQ(y.cols(), s.out);
    // The same product through the f32 path (weights converted up front).
    LinearWeight f32 = l;
    f32.w.bf16 = nullptr;
    f32.w.data = w.values.data();
    Mat yf;
    linear(x, f32, yf);
    for (int64_t i = 0; i < s.n; ++i)
      for (int64_t o = 0; o < s.out; ++o) {
        double ref = bias[static_cast<size_t>(o)];
        for (int64_t k = 0; k < s.in; ++k)
          ref += static_cast<double>(x(i, k)) * w.values[static_cast<size_t>(o * s.in + k)];
        ASSERT_NEAR(y(i, o), ref, 1e-4 * (1 + std::abs(ref))) << s.n << "x" << s.in << "x" << s.out << " at " << i << "," << o;
        ASSERT_NEAR(y(i, o), yf(i, o), 1e-4 * (1 + std::abs(ref)));
      }
    // rowTo reads a row of either storage.
    std::vector<float> row(static_cast<size_t>(s.in));
    l.w.rowTo(s.out - 1, row.data());
    for (int64_t k = 0; k < s.in; ++k)
      EXPECT_EQ(row[static_cast<size_t>(k)], w.values[static_cast<size_t>((s.out - 1) * s.in + k)]);
  }
}

TEST(ModelF32Linear, ProductFromTheMappingMatchesPlainProduct) {
  // F32 nn.Linear weights are multiplied where they lie (the mapping: 4-byte aligned only, hence
  // the one-float offset), split by output columns among threads. Shapes: ViT-B's 197 tokens with
  // an output width that is not a multiple of the split's 16-column blocks, a depth (1500)
  // spanning several of the GEMM's depth blocks, one token (a matrix-vector product); on AVX-512
  // the token-tile GEMM's edges: a half tile of 16 rows, a partial depth block, 12-column tiles with
  // a remainder of 1, its largest token count (1024).
  struct Shape {
    int64_t n, in, out;
  };
  for (const Shape s : {Shape{64, 256, 1000}, Shape{197, 768, 200}, Shape{100, 1500, 130},
                        Shape{1, 768, 1000}, Shape{48, 1040, 37}, Shape{17, 64, 13}, Shape{1024, 64, 24}}) {
    SeededRng rng(7);
    std::vector<float> storage(static_cast<size_t>(s.out * s.in + 1));
    for (auto& v : storage) v = static_cast<float>(rng.normal());
    const float* w = storage.data() + 1;
    Mat x(s.n, s.in);
    for (int64_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(rng.normal());
    std::vector<float> bias(static_cast<size_t>(s.out));
    for (auto& b : bias) b = static_cast<float>(rng.normal());
    LinearWeight l;
    l.w = {w, s.out, s.in};
    l.b = {bias.data(), 1, s.out};
    Mat y;
    linear(x, l, y);
    ASSERT_EQ(y.rows(), s.n);
    ASSERT_EQ(y.cols(), s.out);
    for (int64_t i = 0; i < s.n; ++i)
      for (int64_t o = 0; o < s.out; ++o) {
        double ref = bias[static_cast<size_t>(o)];
        for (int64_t k = 0; k < s.in; ++k) ref += static_cast<double>(x(i, k)) * w[o * s.in + k];
        ASSERT_NEAR(y(i, o), ref, 1e-4 * (1 + std::abs(ref)))
            << s.n << "x" << s.in << "x" << s.out << " at " << i << "," << o;
      }
  }
}

TEST(ModelF32Linear, Conv1DLayoutMatchesPlainProduct) {
  // GPT-2's Conv1D stores W as [in, out]; on AVX-512 the token-tile GEMM gathers each 12-column
  // block of it into a panel. Shapes: GPT-2's c_fc at its full 1,024 tokens, a half tile of 16
  // rows with a partial depth block and a 12-column remainder, too few tokens for the tiles
  // (Eigen), an output narrower than one tile, no depth at all (an attention-only model's empty
  // MLP: the bias alone).
  struct Shape {
    int64_t n, in, out;
  };
  for (const Shape s : {Shape{1024, 768, 3072}, Shape{48, 1040, 37}, Shape{15, 64, 40}, Shape{33, 96, 11},
                        Shape{20, 0, 64}}) {
    SeededRng rng(9);
    std::vector<float> storage(static_cast<size_t>(s.in * s.out + 1));
    for (auto& v : storage) v = static_cast<float>(rng.normal());
    const float* w = storage.data() + 1;  // [in, out]
    Mat x(s.n, s.in);
    for (int64_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(rng.normal());
    std::vector<float> bias(static_cast<size_t>(s.out));
    for (auto& b : bias) b = static_cast<float>(rng.normal());
    LinearWeight l;
    l.w = {w, s.in, s.out};
    l.b = {bias.data(), 1, s.out};
    l.inOut = true;
    Mat y;
    linear(x, l, y);
    ASSERT_EQ(y.rows(), s.n);
    ASSERT_EQ(y.cols(), s.out);
    const int64_t step = s.n * s.out > 100000 ? 7 : 1;  // every 7th cell of the large one
    for (int64_t c = 0; c < s.n * s.out; c += step) {
      const int64_t i = c / s.out, o = c % s.out;
      double ref = bias[static_cast<size_t>(o)];
      for (int64_t k = 0; k < s.in; ++k) ref += static_cast<double>(x(i, k)) * w[k * s.out + o];
      ASSERT_NEAR(y(i, o), ref, 1e-4 * (1 + std::abs(ref)))
          << s.n << "x" << s.in << "x" << s.out << " at " << i << "," << o;
    }
  }
}

}  // namespace
}  // namespace attn::models
