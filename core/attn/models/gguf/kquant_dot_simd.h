#pragma once
// The vector kernel of kquant_dot.h's product in this engine copy (kquant_dot_simd.cpp).
#include <cstdint>

namespace attn::models::gguf {

struct Q8KRows;

/// kquantProduct() with this copy's vector kernel; false (nothing written) in the baseline copy.
bool kquantProductVector(uint32_t type, const Q8KRows& x, const char* w, int64_t rowBytes, int64_t r0,
                         int64_t m, float* y, int64_t ldy);

}  // namespace attn::models::gguf
