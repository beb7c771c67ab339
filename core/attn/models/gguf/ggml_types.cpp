#include "attn/models/gguf/ggml_types.h"

#include <fmt/format.h>

#include <array>

namespace attn::models::gguf {
namespace {

// ggml.c type_traits: block size and bytes per block (sizeof(block_*), ggml-common.h);
// QK_K = 256 for the k-quants and i-quants.
constexpr std::array<GgmlTypeTraits, 40> kTraits = [] {
  std::array<GgmlTypeTraits, 40> t{};
  t[0] = {"F32", 1, 4};
  t[1] = {"F16", 1, 2};
  t[2] = {"Q4_0", 32, 18};     // half d; u8 qs[16]
  t[3] = {"Q4_1", 32, 20};     // half d, m; u8 qs[16]
  t[6] = {"Q5_0", 32, 22};     // half d; u8 qh[4]; u8 qs[16]
  t[7] = {"Q5_1", 32, 24};     // half d, m; u8 qh[4]; u8 qs[16]
  t[8] = {"Q8_0", 32, 34};     // half d; i8 qs[32]
  t[9] = {"Q8_1", 32, 36};     // half d, s; i8 qs[32]
  t[10] = {"Q2_K", 256, 84};   // u8 scales[16]; u8 qs[64]; half d, dmin
  t[11] = {"Q3_K", 256, 110};  // u8 hmask[32]; u8 qs[64]; u8 scales[12]; half d
  t[12] = {"Q4_K", 256, 144};  // half d, dmin; u8 scales[12]; u8 qs[128]
  t[13] = {"Q5_K", 256, 176};  // half d, dmin; u8 scales[12]; u8 qh[32]; u8 qs[128]
  t[14] = {"Q6_K", 256, 210};  // u8 ql[128]; u8 qh[64]; i8 scales[16]; half d
  t[15] = {"Q8_K", 256, 292};  // float d; i8 qs[256]; i16 bsums[16]
  t[16] = {"IQ2_XXS", 256, 66};
  t[17] = {"IQ2_XS", 256, 74};
  t[18] = {"IQ3_XXS", 256, 98};
  t[19] = {"IQ1_S", 256, 50};
  t[20] = {"IQ4_NL", 32, 18};
  t[21] = {"IQ3_S", 256, 110};
  t[22] = {"IQ2_S", 256, 82};
  t[23] = {"IQ4_XS", 256, 136};
  t[24] = {"I8", 1, 1};
  t[25] = {"I16", 1, 2};
  t[26] = {"I32", 1, 4};
  t[27] = {"I64", 1, 8};
  t[28] = {"F64", 1, 8};
  t[29] = {"IQ1_M", 256, 56};
  t[30] = {"BF16", 1, 2};
  t[34] = {"TQ1_0", 256, 54};
  t[35] = {"TQ2_0", 256, 66};
  t[39] = {"MXFP4", 32, 17};
  return t;
}();

}  // namespace

const GgmlTypeTraits* ggmlTypeTraits(uint32_t type) {
  if (type >= kTraits.size() || kTraits[type].name == nullptr) return nullptr;
  return &kTraits[type];
}

std::string ggmlTypeName(uint32_t type) {
  const GgmlTypeTraits* t = ggmlTypeTraits(type);
  return t ? std::string(t->name) : fmt::format("type {}", type);
}

}  // namespace attn::models::gguf
