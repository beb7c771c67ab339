// The panel decoder (AVX2 / AVX-512 kernels in those engine copies, the scalar decoder in the
// baseline one) against two references, bit for bit: ggml-quants.c's dequantizers re-implemented
// in numpy (tests/scripts/gguf_ref.py, the fixtures of gen_gguf_fixtures.py) and the scalar
// decoder (dequantize.cpp) on many random blocks, from odd addresses, in runs of several blocks.
// The suite runs in whichever engine copy the CPU selects; CI also runs it with
// ATTNSCOPE_CPU=baseline (scripts/test.sh), and the AVX-512 copy on an AVX-512 host.
#include "attn/models/gguf/panel_decode.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include "attn/cpu/cpu_level.h"
#include "attn/models/gguf/dequantize.h"
#include "attn/models/gguf/ggml_types.h"

namespace attn::models::gguf {
namespace {

std::string readPanelFixture(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

/// Index of the first value whose bits differ, or -1.
int64_t firstBitDifference(const float* a, const float* b, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (std::memcmp(a + i, b + i, 4) != 0) return i;
  return -1;
}

struct PanelCase {
  const char* name;
  GgmlType type;
  int halfOffsets[2];  // byte offsets of the block's fp16 scales (-1: none)
};

class PanelDecode : public ::testing::TestWithParam<PanelCase> {};

TEST_P(PanelDecode, MatchesGgmlReferenceBitForBit) {
  const PanelCase c = GetParam();
  const std::string dir = std::string(ATTN_FIXTURE_DIR) + "/gguf/dequant/";
  const std::string blocks = readPanelFixture(dir + c.name + ".blocks");
  const std::string values = readPanelFixture(dir + c.name + ".values");
  ASSERT_FALSE(blocks.empty()) << dir << c.name << ".blocks (tests/scripts/gen_gguf_fixtures.py)";
  const int64_t n = static_cast<int64_t>(values.size() / 4);
  const std::string shifted = " " + blocks;  // an odd address, as in the mapping
  std::vector<float> got(static_cast<size_t>(n), -1.0f);
  ASSERT_TRUE(decodePanel(static_cast<uint32_t>(c.type), shifted.data() + 1, got.data(), n));
  const int64_t at = firstBitDifference(got.data(), reinterpret_cast<const float*>(values.data()), n);
  EXPECT_EQ(at, -1) << c.name << " differs from ggml at value " << at << " ("
                    << attn::cpu::levelName(attn::cpu::activeLevel()) << " engine)";
}

TEST_P(PanelDecode, MatchesScalarDecoderOnRandomBlocks) {
  const PanelCase c = GetParam();
  const GgmlTypeTraits* t = ggmlTypeTraits(static_cast<uint32_t>(c.type));
  ASSERT_NE(t, nullptr);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 255);
  // Runs of 1..9 blocks at every offset 0..3: the kernels' loops over blocks and sub-blocks.
  for (int64_t blocksInRun = 1; blocksInRun <= 9; ++blocksInRun) {
    for (int offset = 0; offset < 4; ++offset) {
      std::vector<char> raw(static_cast<size_t>(offset + blocksInRun * t->blockBytes));
      for (char& ch : raw) ch = static_cast<char>(byte(rng));
      // Finite scales (a random fp16 between 2^-14 and 2^4, either sign): NaN payloads are not
      // the point here, the nibble and bit shuffles are.
      for (int64_t b = 0; b < blocksInRun; ++b) {
        for (int h : c.halfOffsets) {
          if (h < 0) continue;
          const auto bits =
              static_cast<uint16_t>((byte(rng) & 0x80) << 8 | (1 + byte(rng) % 18) << 10 | byte(rng));
          std::memcpy(raw.data() + offset + b * t->blockBytes + h, &bits, 2);
        }
      }
      const int64_t n = blocksInRun * t->blockElements;
      std::vector<float> want(static_cast<size_t>(n)), got(static_cast<size_t>(n), -1.0f);
      ASSERT_TRUE(dequantize(static_cast<uint32_t>(c.type), raw.data() + offset, want.data(), n));
      ASSERT_TRUE(decodePanel(static_cast<uint32_t>(c.type), raw.data() + offset, got.data(), n));
      const int64_t at = firstBitDifference(got.data(), want.data(), n);
      ASSERT_EQ(at, -1) << c.name << ", " << blocksInRun << " blocks at offset " << offset << ": value " << at
                        << " is " << got[static_cast<size_t>(at)] << ", the scalar decoder gives "
                        << want[static_cast<size_t>(at)];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Types, PanelDecode,
                         ::testing::Values(PanelCase{"Q8_0", GgmlType::Q8_0, {0, -1}},
                                           PanelCase{"Q4_K", GgmlType::Q4_K, {0, 2}},
                                           PanelCase{"Q6_K", GgmlType::Q6_K, {208, -1}},
                                           PanelCase{"Q4_0", GgmlType::Q4_0, {0, -1}}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(PanelDecode, HasVectorKernelsExactlyInTheVectorEngineCopies) {
  const bool vector = attn::cpu::compiledLevel() != attn::cpu::Level::Baseline;
  for (GgmlType type : {GgmlType::Q8_0, GgmlType::Q4_K, GgmlType::Q6_K})
    EXPECT_EQ(hasVectorDecoder(static_cast<uint32_t>(type)), vector)
        << ggmlTypeName(static_cast<uint32_t>(type));
  EXPECT_FALSE(hasVectorDecoder(static_cast<uint32_t>(GgmlType::Q2_K)));
}

TEST(PanelDecode, RefusesWhatTheScalarDecoderRefuses) {
  std::vector<char> raw(210 * 2);
  std::vector<float> out(512);
  EXPECT_FALSE(
      decodePanel(static_cast<uint32_t>(GgmlType::Q6_K), raw.data(), out.data(), 300));  // not whole blocks
  EXPECT_FALSE(decodePanel(static_cast<uint32_t>(GgmlType::Q8_0), raw.data(), out.data(), -32));
  EXPECT_FALSE(decodePanel(static_cast<uint32_t>(GgmlType::IQ2_XS), raw.data(), out.data(), 256));
}

}  // namespace
}  // namespace attn::models::gguf
