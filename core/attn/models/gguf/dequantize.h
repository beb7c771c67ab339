#pragma once
// ggml's tensor types decoded to f32, value for value as ggml-quants.c's
// dequantize_row_* (and ggml.c's F16/BF16 conversions) compute them: the same
// products in the same order, in float, without fused multiply-adds (this file is
// compiled with -ffp-contract=off), so the results are bit-identical.
#include <cstdint>

namespace attn::models::gguf {

/// Whether dequantize() decodes the ggml type: F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0,
/// Q2_K, Q3_K, Q4_K, Q5_K, Q6_K.
bool canDequantize(uint32_t type);
/// "F32, F16, ..." for messages.
const char* dequantizableTypes();
/// Decodes `n` values, a whole number of the type's blocks, from `src` (any alignment) to `dst`.
/// False (and nothing written) for a type canDequantize() refuses or `n` not whole blocks.
bool dequantize(uint32_t type, const char* src, float* dst, int64_t n);

}  // namespace attn::models::gguf
