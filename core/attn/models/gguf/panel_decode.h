#pragma once
// Rows of a GGUF matrix decoded to f32 for the products (linear()'s panels): the types of the
// common files (Q8_0, and Q4_K and Q6_K of the Q4_K_M / Q5_K_M mixes) with AVX2 or AVX-512, as
// this engine copy is compiled for; every other type, and the baseline copy, through
// dequantize(). Values bit for bit those of dequantize() (ggml-quants.c dequantize_row_*): the
// same float products in the same order, each rounded once (compiled with -ffp-contract=off).
#include <cstdint>

namespace attn::models::gguf {

/// Decodes `n` values, a whole number of the type's blocks, from `src` (any alignment) to `dst`.
/// False (and nothing written) where dequantize() would refuse.
bool decodePanel(uint32_t type, const char* src, float* dst, int64_t n);

/// Whether decodePanel() has a vector kernel for the type in this engine copy ("Q8_0": AVX2 or
/// AVX-512 builds): what the tests and the benchmark report.
bool hasVectorDecoder(uint32_t type);

}  // namespace attn::models::gguf
