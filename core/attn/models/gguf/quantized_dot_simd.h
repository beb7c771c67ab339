#pragma once
// The vector kernel of quantized_dot.h's product in this engine copy (quantized_dot_simd.cpp).
#include <cstdint>

namespace attn::models::gguf {

struct Q8Rows;

/// quantizedProduct() with this copy's vector kernel; false (nothing written) in the baseline
/// copy, which has none.
bool quantizedProductVector(const Q8Rows& x, const char* w, int64_t rowBytes, int64_t r0, int64_t m, float* y,
                            int64_t ldy);

/// "avx512-vnni", "avx512", "avx2", or null in the baseline copy.
const char* vectorKernelName();

}  // namespace attn::models::gguf
