#pragma once
// Products of GGUF Q8_0 weights with 8-bit activations, the arithmetic llama.cpp's CPU backend
// uses for them (ggml-cpu quants.c: quantize_row_q8_0, ggml_vec_dot_q8_0_q8_0): each token's row
// is cut into blocks of 32 values, each block stored as int8 q = round(x * 127 / amax) (to
// nearest, ties to even, as its AVX code rounds) with the scale d = amax / 127 rounded to f16;
// a weight block and a token block meet in an exact integer dot product, scaled by the two
// scales in f32. The results differ from the f32 product with the dequantized weights by the
// activations' rounding (about 2^-8 of each block's largest value), as llama.cpp's do.
//
// One definition of the numbers for every engine copy: per output, the blocks' terms
//   acc = acc + float(sum_k qx_k qw_k) * (dx * dw)
// are added in block order in f32, each operation rounded once (compiled with
// -ffp-contract=off), so the AVX2 and AVX-512 kernels give the scalar reference's results bit
// for bit; only the integer sums are computed differently (VNNI vpdpbusd, or AVX2 maddubs).
#include <cstdint>
#include <vector>

#include "attn/models/model_weights.h"
#include "attn/models/nn_ops.h"

namespace attn::models::gguf {

/// Rows of activations quantized to 32-value blocks: q [rows, cols] int8 in [-127, 127],
/// d [rows, cols / 32] the f16-rounded block scales (as f32), sum [rows, cols / 32] the blocks'
/// sums of q (the offset term of the unsigned-by-signed VNNI dot products).
struct Q8Rows {
  int64_t rows = 0, cols = 0;
  std::vector<int8_t> q;
  std::vector<float> d;
  std::vector<int32_t> sum;
  int64_t blocks() const { return cols / 32; }
};

/// Quantizes x [rows, cols] (row stride `stride` floats; cols a multiple of 32). NaN quantizes
/// to -127 and infinities saturate; a block of zeros gets d = 0.
void quantizeRowsQ8(const float* x, int64_t rows, int64_t cols, int64_t stride, Q8Rows& out);

/// The weight types the quantized-activation products take: Q8_0 (here) and Q4_K, Q6_K
/// (kquant_dot.h: activations quantized per 256 values).
bool canQuantizedDot(uint32_t type);

/// Integer dot product of 32 activation values with one Q8_0 block (its int8 part at `block + 2`).
int32_t blockDotQ8_0(const int8_t* x, const char* block);

/// y[i * ldy + j] = the product of x's row i with weight rows r0 + j (j < m) of a Q8_0 matrix
/// whose rows start every `rowBytes` bytes at `w`: the scalar reference, on the stored blocks.
void quantizedProductReference(const Q8Rows& x, const char* w, int64_t rowBytes, int64_t r0, int64_t m,
                               float* y, int64_t ldy);

/// The same numbers from this engine copy's kernel (AVX-512 VNNI, AVX-512, AVX2; the reference
/// in the baseline copy), the weights repacked a panel at a time into per-thread scratch.
void quantizedProduct(const Q8Rows& x, const char* w, int64_t rowBytes, int64_t r0, int64_t m, float* y,
                      int64_t ldy);

/// Which kernel quantizedProduct() runs here: "avx512-vnni", "avx512", "avx2" or "scalar".
const char* quantizedDotKernel();

/// linear() for GGUF weights on this thread: true when it computed y with quantized
/// activations (the weight type is one canQuantizedDot() takes, the row length a whole number of
/// its activation blocks, and the thread's setting is on).
bool quantizedLinear(const ConstMatRef& x, const LinearWeight& l, Mat& y);

/// The calling thread's setting (on unless a QuantizedDotScope turned it off).
bool quantizedDotEnabled();

/// Sets the calling thread's setting for the scope's lifetime (Model::run applies
/// RunOptions::quantizedDot this way; the products read it on the thread that calls them).
class QuantizedDotScope {
 public:
  explicit QuantizedDotScope(bool on);
  ~QuantizedDotScope();
  QuantizedDotScope(const QuantizedDotScope&) = delete;
  QuantizedDotScope& operator=(const QuantizedDotScope&) = delete;

 private:
  bool previous_;
};

}  // namespace attn::models::gguf
