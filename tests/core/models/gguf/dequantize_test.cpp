// Each ggml block type decoded by our dequantizer against ggml-quants.c's reference
// dequantizers re-implemented in numpy (tests/scripts/gguf_ref.py) on random blocks:
// the values must agree bit for bit. Plus a few blocks decoded by hand.
#include "attn/models/gguf/dequantize.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "attn/io/float_convert.h"
#include "attn/models/gguf/ggml_types.h"

namespace attn::models::gguf {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Case {
  const char* name;
  uint32_t type;
};

class DequantizeReference : public ::testing::TestWithParam<Case> {};

TEST_P(DequantizeReference, MatchesGgmlBitForBit) {
  const Case c = GetParam();
  const std::string dir = std::string(ATTN_FIXTURE_DIR) + "/gguf/dequant/";
  const std::string blocks = slurp(dir + c.name + ".blocks"), values = slurp(dir + c.name + ".values");
  ASSERT_FALSE(blocks.empty()) << dir << c.name << ".blocks (tests/scripts/gen_gguf_fixtures.py)";
  const GgmlTypeTraits* t = ggmlTypeTraits(c.type);
  ASSERT_NE(t, nullptr);
  ASSERT_TRUE(canDequantize(c.type));
  const int64_t n = static_cast<int64_t>(values.size() / 4);
  ASSERT_EQ(static_cast<int64_t>(blocks.size()), n / t->blockElements * t->blockBytes);
  // Decoded from an odd address: the mapping gives no alignment.
  std::string shifted = " " + blocks;
  std::vector<float> got(static_cast<size_t>(n), -1.0f);
  ASSERT_TRUE(dequantize(c.type, shifted.data() + 1, got.data(), n));
  int64_t mismatches = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t a, b;
    std::memcpy(&a, &got[static_cast<size_t>(i)], 4);
    std::memcpy(&b, values.data() + 4 * i, 4);
    if (a != b && mismatches++ < 5) {
      float want;
      std::memcpy(&want, &b, 4);
      ADD_FAILURE() << c.name << " value " << i << " (block " << i / t->blockElements << "): got "
                    << got[static_cast<size_t>(i)] << ", ggml gives " << want;
    }
  }
  EXPECT_EQ(mismatches, 0) << c.name << ": " << n << " values";
}

INSTANTIATE_TEST_SUITE_P(Types, DequantizeReference,
                         ::testing::Values(Case{"F16", 1}, Case{"BF16", 30}, Case{"Q4_0", 2}, Case{"Q4_1", 3},
                                           Case{"Q5_0", 6}, Case{"Q5_1", 7}, Case{"Q8_0", 8},
                                           Case{"Q2_K", 10}, Case{"Q3_K", 11}, Case{"Q4_K", 12},
                                           Case{"Q5_K", 13}, Case{"Q6_K", 14}),
                         [](const auto& info) { return std::string(info.param.name); });

std::string half(float f) {
  const uint16_t h = floatToHalf(f);
  return std::string(reinterpret_cast<const char*>(&h), 2);
}

TEST(Dequantize, Q8_0AndQ4_0BlocksByHand) {
  // Q8_0: d = 0.5, q = 0, 1, ..., -16 ... : value = q * d.
  std::string q8 = half(0.5f);
  for (int j = 0; j < 32; ++j) q8.push_back(static_cast<char>(j - 16));
  float y[32];
  dequantize(8, q8.data(), y, 32);
  EXPECT_EQ(y[0], -8.0f);
  EXPECT_EQ(y[16], 0.0f);
  EXPECT_EQ(y[31], 7.5f);
  // Q4_0: byte j holds value j (low nibble) and j + 16 (high nibble), each minus 8, times d = 2.
  std::string q4 = half(2.0f);
  q4.push_back(static_cast<char>(0xF0));                               // values 0 -> 0 - 8, 16 -> 15 - 8
  for (int j = 1; j < 16; ++j) q4.push_back(static_cast<char>(0x9A));  // low 10, high 9
  dequantize(2, q4.data(), y, 32);
  EXPECT_EQ(y[0], -16.0f);
  EXPECT_EQ(y[16], 14.0f);
  EXPECT_EQ(y[1], 4.0f);
  EXPECT_EQ(y[17], 2.0f);
}

TEST(Dequantize, Q4_1AddsTheMinimumAndQ5_0TakesTheFifthBit) {
  std::string q41 = half(0.25f) + half(-1.0f);
  for (int j = 0; j < 16; ++j) q41.push_back(static_cast<char>(0x3F));  // low 15, high 3
  float y[32];
  dequantize(3, q41.data(), y, 32);
  EXPECT_EQ(y[0], 15 * 0.25f - 1.0f);
  EXPECT_EQ(y[16], 3 * 0.25f - 1.0f);
  // Q5_0: qh bit j is value j's fifth bit, bit j + 16 value j + 16's; value - 16.
  std::string q50 = half(1.0f);
  const uint32_t qh = 1u | (1u << 16);  // values 0 and 16 get +16
  q50.append(reinterpret_cast<const char*>(&qh), 4);
  for (int j = 0; j < 16; ++j) q50.push_back(static_cast<char>(0x21));  // low 1, high 2
  dequantize(6, q50.data(), y, 32);
  EXPECT_EQ(y[0], 1.0f);    // (1 | 16) - 16
  EXPECT_EQ(y[1], -15.0f);  // 1 - 16
  EXPECT_EQ(y[16], 2.0f);   // (2 | 16) - 16
  EXPECT_EQ(y[17], -14.0f);
}

TEST(Dequantize, KnowsWhichTypesItDecodes) {
  for (uint32_t t : {0u, 1u, 2u, 3u, 6u, 7u, 8u, 10u, 11u, 12u, 13u, 14u, 30u})
    EXPECT_TRUE(canDequantize(t)) << t;
  for (uint32_t t : {9u, 15u, 16u, 20u, 23u, 24u, 28u, 39u, 99u}) EXPECT_FALSE(canDequantize(t)) << t;
  // Refused, not decoded: an undecodable type, a partial block.
  const std::string zeros(64, '\0');
  float y[64] = {};
  EXPECT_FALSE(dequantize(16, zeros.data(), y, 32));
  EXPECT_FALSE(dequantize(99, zeros.data(), y, 32));
  EXPECT_FALSE(dequantize(8, zeros.data(), y, 31));
  EXPECT_TRUE(dequantize(8, zeros.data(), y, 32));
}

}  // namespace
}  // namespace attn::models::gguf
