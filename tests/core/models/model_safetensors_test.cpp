// The reference loader's rules on every safetensors file (tensor files and
// model weights alike), and the memory-mapped reader model weights use.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "attn/io/safetensors_reader.h"
#include "attn/models/safetensors_mmap.h"

namespace attn {
namespace {

std::string file(const std::string& header, const std::string& data) {
  std::string b(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) b[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return b + header + data;
}

std::string floats(std::initializer_list<float> v) {
  std::string s(v.size() * 4, '\0');
  size_t i = 0;
  for (float f : v) std::memcpy(s.data() + 4 * i++, &f, 4);
  return s;
}

TEST(ModelSafetensors, GapBetweenTensorsIsRefused) {
  // 'a' [0, 8), 'b' [12, 20): four bytes between them belong to no tensor.
  const std::string h = R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                            "b": {"dtype": "F32", "shape": [2], "data_offsets": [12, 20]}})";
  auto r = parseSafetensors(file(h, floats({1, 2, 0, 3, 4})), "gap.safetensors");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "gap.safetensors: gap of 4 bytes between tensors 'a' and 'b' (data_offsets [0, 8] and [12, 20]); "
            "tensors must cover the data section exactly");
}

TEST(ModelSafetensors, FirstTensorMustStartAtZeroAndTrailingBytesAreRefused) {
  auto late = parseSafetensorsHeader(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})", 8,
                                     "l.safetensors");
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.error().message.find("l.safetensors: tensor 'a' starts at data byte 4"), std::string::npos)
      << late.error().message;
  auto trailing = parseSafetensorsHeader(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", 12,
                                         "t.safetensors");
  ASSERT_FALSE(trailing.ok());
  EXPECT_EQ(trailing.error().message,
            "t.safetensors: the tensors cover 4 of the 12 data bytes; 8 trailing bytes belong to no tensor");
}

TEST(ModelSafetensors, MetadataMustMapToStringsAndHeaderStartWithBrace) {
  auto ok = parseSafetensorsHeader(
      R"({"__metadata__": {"format": "pt"}, "a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", 4,
      "m.safetensors");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->size(), 1u);
  auto bad = parseSafetensorsHeader(R"({"__metadata__": {"n": 3}})", 0, "m.safetensors");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "m.safetensors: __metadata__ must map names to strings");
  auto space = parseSafetensorsHeader(R"( {"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", 4,
                                      "s.safetensors");
  ASSERT_FALSE(space.ok());
  // Trailing spaces are the format's padding and stay allowed.
  auto padded = parseSafetensorsHeader(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}    )", 4,
                                       "s.safetensors");
  EXPECT_TRUE(padded.ok());
}

class MappedSafetensors : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& bytes) {
    const auto p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("attn_st_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(MappedSafetensors, ReadsTensorsInPlace) {
  // bf16 1.5 = 0x3FC0, f16 -2 = 0xC000
  const std::string data = floats({1.f, 2.f, 3.f}) + std::string("\xC0\x3F\x00\xC0", 4);
  const std::string h = R"({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 12]},
                            "b": {"dtype": "BF16", "shape": [1], "data_offsets": [12, 14]},
                            "h": {"dtype": "F16", "shape": [1], "data_offsets": [14, 16]}})";
  auto f = models::SafetensorsFile::open(write("ok.safetensors", file(h, data)));
  ASSERT_TRUE(f.ok()) << f.error().message;
  const auto* w = (*f)->find("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->shape, (std::vector<int64_t>{3}));
  float got[3];
  std::memcpy(got, (*f)->bytes(*w).data(), 12);
  EXPECT_EQ(got[2], 3.f);
  EXPECT_EQ((*f)->find("nope"), nullptr);
  EXPECT_EQ((*f)->bytes(*(*f)->find("h")), std::string("\x00\xC0", 2));
}

TEST_F(MappedSafetensors, SameRulesAsTheReader) {
  const std::string h = R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                            "b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}})";
  const std::string path = write("gap.safetensors", file(h, floats({1, 0, 2})));
  auto f = models::SafetensorsFile::open(path);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().message.rfind(path + ": gap of 4 bytes between tensors 'a' and 'b'", 0), 0u)
      << f.error().message;
  auto missing = models::SafetensorsFile::open((dir_ / "none.safetensors").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("none.safetensors: cannot open file (no such file)"), std::string::npos);
  auto shortFile = models::SafetensorsFile::open(write("short.safetensors", "abc"));
  ASSERT_FALSE(shortFile.ok());
  EXPECT_NE(shortFile.error().message.find("too short"), std::string::npos);
  std::string huge(8, '\0');
  huge[4] = 1;  // 2^32 header bytes
  auto big = models::SafetensorsFile::open(write("big.safetensors", huge + "{}"));
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("header claims 4294967296 bytes"), std::string::npos) << big.error().message;
}

}  // namespace
}  // namespace attn
