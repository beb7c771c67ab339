#pragma once
// Products of GGUF Q4_K / Q6_K weights with 8-bit activations, the arithmetic llama.cpp's CPU
// backend uses for them (ggml-quants.c quantize_row_q8_K_ref; ggml-cpu's
// ggml_vec_dot_q4_K_q8_K, ggml_vec_dot_q6_K_q8_K). Each token's row is cut into super-blocks of
// 256 values, each stored as int8 q = min(127, round(x * iscale)) with iscale = -127 / the
// value of largest magnitude (to nearest, ties to even) and the f32 scale dx = 1 / iscale; the
// sums of q over each 16 values ("bsums") carry the Q4_K minimums and the Q6_K offset.
//
// Per output and super-block the integer parts are exact:
//   Q4_K: sumi = sum_j sc_j sum_{k in j} q4_k qx_k,  summ = sum_j m_j sum_{k in j} qx_k  (j: 8 x 32)
//   Q6_K: sumi = sum_j sc_j sum_{k in j} (q6_k - 32) qx_k                            (j: 16 x 16)
// and the super-blocks' terms are added in order in f32, each operation rounded once (compiled
// with -ffp-contract=off):
//   Q4_K: acc = (acc + float(sumi) * (dx * d)) - float(summ) * (dx * dmin)
//   Q6_K: acc = acc + float(sumi) * (dx * d)
// so every engine copy's kernel gives the scalar reference's bits. llama.cpp adds the same
// integer sums with its own f32 order (fused, in vector lanes): the results differ from it by
// f32 rounding only.
#include <cstdint>
#include <vector>

namespace attn::models::gguf {

constexpr int64_t kSuperBlock = 256;

/// Rows of activations quantized to 256-value super-blocks: q [rows, cols], d [rows, cols/256],
/// bsum16 [rows, cols/16] the sums of q over 16 values; as two int16 in one int32 (low first: the
/// operands of 16-bit pair dot products with the rows' Q4_K minimums / Q6_K scales), pairSums
/// [rows, cols/64] the sums over the two 32-value halves of each 64 values and bsumPairs
/// [rows, cols/32] the bsum16 of each 32 values.
struct Q8KRows {
  int64_t rows = 0, cols = 0;
  std::vector<int8_t> q;
  std::vector<float> d;
  std::vector<int32_t> bsum16, pairSums, bsumPairs;
  int64_t blocks() const { return cols / kSuperBlock; }
};

/// Quantizes x [rows, cols] (row stride `stride` floats; cols a multiple of 256). A block of
/// zeros gets d = 0; NaN quantizes within [-127, 127] without fault.
void quantizeRowsQ8K(const float* x, int64_t rows, int64_t cols, int64_t stride, Q8KRows& out);

/// Whether the K-quant product takes this weight type: Q4_K, Q6_K.
bool canKQuantDot(uint32_t type);

/// One stored super-block as the kernels read it: its 256 values in row order as unsigned
/// (Q4_K 0..15, Q6_K 0..63, the stored 6 bits without the -32), the per-sub-block scales
/// (Q4_K 8, Q6_K 16) and minimums (Q4_K 8), and the f16 super-block scales as f32.
struct KBlock {
  uint8_t v[kSuperBlock];
  int32_t sc[16], m[8];
  float d, dmin;
};
/// (withValues false: the scales only, for kernels that unpack the values themselves.)
void unpackQ4K(const char* block, KBlock& out, bool withValues = true);
void unpackQ6K(const char* block, KBlock& out, bool withValues = true);

/// y[i * ldy + j] = the product of x's row i with weight rows r0 + j (j < m) of a Q4_K or Q6_K
/// matrix whose rows start every `rowBytes` bytes at `w`: the scalar reference.
void kquantProductReference(uint32_t type, const Q8KRows& x, const char* w, int64_t rowBytes, int64_t r0,
                            int64_t m, float* y, int64_t ldy);

/// The same numbers from this engine copy's kernel (the reference in the baseline copy).
void kquantProduct(uint32_t type, const Q8KRows& x, const char* w, int64_t rowBytes, int64_t r0, int64_t m,
                   float* y, int64_t ldy);

}  // namespace attn::models::gguf
