#include <gtest/gtest.h>

#include <cstring>

#include "attn/io/npy_writer.h"

namespace attn {
namespace {

TEST(NpyWriter, HeaderIsAlignedAndDescribesShape) {
  Tensor t;
  t.shape = {2, 3};
  t.data = {1, 2, 3, 4, 5, 6};
  const std::string b = encodeNpy(t);
  ASSERT_EQ(b.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const size_t hlen = static_cast<unsigned char>(b[8]) | (static_cast<unsigned char>(b[9]) << 8);
  EXPECT_EQ((10 + hlen) % 64, 0u);
  const std::string header = b.substr(10, hlen);
  EXPECT_NE(header.find("'descr': '<f4'"), std::string::npos);
  EXPECT_NE(header.find("'shape': (2, 3)"), std::string::npos);
  EXPECT_EQ(b.size(), 10 + hlen + 6 * sizeof(float));
  float last;
  std::memcpy(&last, b.data() + b.size() - 4, 4);
  EXPECT_EQ(last, 6.0f);
}

TEST(NpyWriter, OneDimensionalShapeHasTrailingComma) {
  Tensor t;
  t.shape = {3};
  t.data = {1, 2, 3};
  EXPECT_NE(encodeNpy(t).find("'shape': (3,)"), std::string::npos);
}

TEST(NpyWriter, UnicodeStringsAreUtf32) {
  const std::string b = encodeNpyStrings({"ab", "猫"});
  EXPECT_NE(b.find("'descr': '<U2'"), std::string::npos);
  // Last element: U+732B then padding 0.
  const std::string tail = b.substr(b.size() - 8);
  EXPECT_EQ(tail, std::string("\x2B\x73\x00\x00\x00\x00\x00\x00", 8));
}

TEST(NpyWriter, Int32IsLittleEndianI4WithTheShape) {
  const std::string b = encodeNpyInt32({1, -2, 70000, 16777217, 5, 6}, {2, 3});
  const size_t hlen = static_cast<unsigned char>(b[8]) | (static_cast<unsigned char>(b[9]) << 8);
  EXPECT_EQ((10 + hlen) % 64, 0u);
  const std::string header = b.substr(10, hlen);
  EXPECT_NE(header.find("'descr': '<i4'"), std::string::npos);
  EXPECT_NE(header.find("'shape': (2, 3)"), std::string::npos);
  ASSERT_EQ(b.size(), 10 + hlen + 6 * 4);
  // -2 is 0xFFFFFFFE; 16777217 = 2^24 + 1 (a float32 would round it) is 01 00 00 01
  EXPECT_EQ(b.substr(10 + hlen + 4, 4), std::string("\xFE\xFF\xFF\xFF", 4));
  EXPECT_EQ(b.substr(10 + hlen + 12, 4), std::string("\x01\x00\x00\x01", 4));
  EXPECT_NE(encodeNpyInt32({7}).find("'shape': (1,)"), std::string::npos);
}

TEST(NpzWriter, IsAZipOfNpyMembers) {
  NpzWriter w;
  Tensor t;
  t.shape = {1};
  t.data = {3};
  w.add("weights", t);
  const std::string z = w.bytes();
  EXPECT_EQ(z.substr(0, 4), std::string("PK\x03\x04", 4));
  EXPECT_NE(z.find("weights.npy"), std::string::npos);
  EXPECT_NE(z.find("PK\x05\x06"), std::string::npos);
}

}  // namespace
}  // namespace attn
