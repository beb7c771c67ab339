#pragma once
// ggml's tensor types as GGUF stores them (ggml.h enum ggml_type; block layouts in
// ggml-common.h): each type packs `blockElements` consecutive values of a row into
// `blockBytes` bytes. Sizes are needed to bound every tensor inside the file, even for
// types AttnScope cannot dequantize.
#include <cstdint>
#include <string>

namespace attn::models::gguf {

enum class GgmlType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q8_1 = 9,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,
  IQ2_XXS = 16,
  IQ2_XS = 17,
  IQ3_XXS = 18,
  IQ1_S = 19,
  IQ4_NL = 20,
  IQ3_S = 21,
  IQ2_S = 22,
  IQ4_XS = 23,
  I8 = 24,
  I16 = 25,
  I32 = 26,
  I64 = 27,
  F64 = 28,
  IQ1_M = 29,
  BF16 = 30,
  TQ1_0 = 34,
  TQ2_0 = 35,
  MXFP4 = 39,
};

struct GgmlTypeTraits {
  const char* name = nullptr;  // as llama.cpp prints it: "Q4_K", "F16", ...
  int64_t blockElements = 0, blockBytes = 0;
};

/// The traits of a stored type number; null for a number ggml does not define (or has removed).
const GgmlTypeTraits* ggmlTypeTraits(uint32_t type);
/// "Q4_K", or "type 4" for an unknown number.
std::string ggmlTypeName(uint32_t type);

}  // namespace attn::models::gguf
