// The streamed .npz writer against the in-memory NpzWriter (same
// bytes), and float16 conversion against hand-encoded values.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <random>

#include "attn/io/float_convert.h"
#include "attn/io/npy_reader.h"
#include "attn/io/npy_writer.h"
#include "attn/io/npz_stream.h"
#include "attn/io/npy_reader.h"

namespace attn {
namespace {

std::filesystem::path tempPath(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("attn_npz_stream_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

Tensor randomTensor(std::vector<int64_t> shape, uint64_t seed) {
  Tensor t;
  t.shape = std::move(shape);
  int64_t n = 1;
  for (auto d : t.shape) n *= d;
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g;
  for (int64_t k = 0; k < n; ++k) t.data.push_back(g(rng));
  return t;
}

TEST(NpzStream, SameBytesAsTheInMemoryWriterWhenFedPieceByPiece) {
  const Tensor a = randomTensor({3, 5, 7}, 1), b = randomTensor({4}, 2);
  const std::vector<std::string> tokens{"the", "猫", ","};
  NpzWriter mem;
  mem.add("scores", a);
  mem.add("entropy", b);
  mem.addStrings("tokens", tokens);
  const auto path = tempPath("same.npz");
  {
    NpzStreamWriter w;
    ASSERT_TRUE(w.open(path.string()));
    ASSERT_TRUE(w.beginFloatMember("scores", NpyFloat::F32, a.shape));
    for (size_t k = 0; k < a.data.size(); k += 35) ASSERT_TRUE(w.appendFloats(a.data.data() + k, 35));  // head by head
    ASSERT_TRUE(w.endMember());
    ASSERT_TRUE(w.addFloat("entropy", b));
    ASSERT_TRUE(w.addStrings("tokens", tokens));
    ASSERT_TRUE(w.commit());
  }
  auto bytes = readFileBytes(path.string());
  ASSERT_TRUE(bytes);
  EXPECT_EQ(*bytes, mem.bytes());
  auto arrays = readNpzFile(path.string());
  ASSERT_TRUE(arrays) << arrays.error().message;
  ASSERT_EQ(arrays->size(), 3u);
  EXPECT_EQ((*arrays)[0].shape, a.shape);
  EXPECT_EQ((*arrays)[0].values.data, a.data);
  EXPECT_EQ((*arrays)[2].strings, tokens);
}

TEST(NpzStream, ShortMemberIsAnErrorAndLeavesNoFile) {
  const auto path = tempPath("short.npz");
  std::filesystem::remove(path);
  {
    NpzStreamWriter w;
    ASSERT_TRUE(w.open(path.string()));
    ASSERT_TRUE(w.beginFloatMember("weights", NpyFloat::F32, {2, 2}));
    const float v[3] = {1, 2, 3};
    ASSERT_TRUE(w.appendFloats(v, 3));
    const auto st = w.endMember();
    ASSERT_FALSE(st);
    EXPECT_NE(st.error().message.find("weights.npy"), std::string::npos) << st.error().message;
    EXPECT_NE(st.error().message.find(path.string()), std::string::npos);
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  for (const auto& e : std::filesystem::directory_iterator(path.parent_path()))
    EXPECT_EQ(e.path().filename().string().find("short.npz.tmp"), std::string::npos) << e.path();
}

TEST(Float16, HandEncodedValues) {
  EXPECT_EQ(floatToHalf(0.0f), 0x0000);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(floatToHalf(1.0f / 3.0f), 0x3555);      // 0.333252: the nearest half
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);          // largest half
  EXPECT_EQ(floatToHalf(65519.0f), 0x7BFF);          // rounds down
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00);          // rounds up to infinity
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000);  // halfway to 0: ties to even
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -26)), 0x0001);  // 0.75 of the smallest: up
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00);  // tie: even mantissa
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);  // tie: up to even
  EXPECT_EQ(floatToHalf(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(std::numeric_limits<float>::quiet_NaN()))));
  // Every finite half survives the round trip exactly.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00) != 0x7C00) EXPECT_EQ(floatToHalf(halfToFloat(static_cast<uint16_t>(h))), h) << h;
  }
}

TEST(NpzStream, F16MemberRoundTripsWithinHalfPrecision) {
  Tensor w = randomTensor({2, 50, 50}, 3);
  for (float& x : w.data) x = std::exp(3.0f * x) / 1e4f;  // weights-like: many decades, below 65504
  const auto path = tempPath("half.npz");
  {
    NpzStreamWriter s;
    ASSERT_TRUE(s.open(path.string()));
    ASSERT_TRUE(s.addFloat("weights", w, NpyFloat::F16));
    ASSERT_TRUE(s.commit());
  }
  auto arrays = readNpzFile(path.string());
  ASSERT_TRUE(arrays) << arrays.error().message;
  const auto& a = arrays->front();
  EXPECT_EQ(a.descr, "<f2");
  EXPECT_EQ(a.shape, w.shape);
  for (size_t k = 0; k < w.data.size(); ++k) {
    const float x = w.data[k], y = a.values.data[k];
    // Half: 11 significant bits (relative 2^-11 after rounding) above 2^-14, absolute 2^-25 below.
    EXPECT_LE(std::abs(x - y), std::max(std::ldexp(std::abs(x), -11), std::ldexp(1.0f, -25))) << x;
  }
  EXPECT_EQ(std::filesystem::file_size(path) < 2 * 2500 * 2 + 400, true);
}

}  // namespace
}  // namespace attn
