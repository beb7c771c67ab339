// Headers that claim absurd sizes are refused before anything is allocated:
// the limits are checked against the header alone, so a few bytes claiming
// terabytes fail fast with an error that names the file and the size.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "attn/io/npy_reader.h"
#include "attn/io/npy_writer.h"

namespace attn {
namespace {

std::string smallNpy() {
  Tensor t;
  t.shape = {4, 4};
  t.data.assign(16, 1.0f);
  return encodeNpy(t);
}

std::string withShape(const std::string& shape) {
  std::string s = smallNpy();
  s.replace(s.find("(4, 4)"), 6, shape);
  return s;
}

TEST(LoaderLimits, NpyClaimingTenToTheTwelveElements) {
  const auto start = std::chrono::steady_clock::now();
  auto r = parseNpy(withShape("(1000000, 1000000)"), "huge.npy");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("huge.npy"), std::string::npos);
  EXPECT_NE(r.error().message.find("elements"), std::string::npos) << r.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(LoaderLimits, NpyShapeProductOverflowIsRefused) {
  // 10^15 * 10^15 wraps int64; the check must not be fooled by the wrap.
  for (const char* shape : {"(999999999999999, 999999999999999)", "(4294967296, 4294967296, 16)",
                            "(0, 999999999999999, 999999999999999)"}) {
    auto r = parseNpy(withShape(shape), "wrap.npy");
    if (std::string(shape).starts_with("(0,")) {
      // zero elements is a valid (empty) array, but the header must still hold together
      if (r.ok()) {
        EXPECT_TRUE(r->values.data.empty());
      }
      continue;
    }
    ASSERT_FALSE(r.ok()) << shape;
    EXPECT_NE(r.error().message.find("wrap.npy"), std::string::npos);
  }
}

TEST(LoaderLimits, NpyWithinElementLimitButOverByteLimit) {
  ReadLimits lim;
  lim.maxBytes = 1000;
  auto r = parseNpy(withShape("(100, 100)"), "big.npy", lim);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("byte limit"), std::string::npos) << r.error().message;
}

// Sets the uncompressed size of the archive's first member in the central
// directory (a 4-byte field at offset 24 of the entry).
std::string withDeclaredSize(std::string z, uint32_t size) {
  const auto cd = z.find(std::string("PK\x01\x02", 4));
  EXPECT_NE(cd, std::string::npos);
  for (int i = 0; i < 4; ++i) z[cd + 24 + i] = static_cast<char>((size >> (8 * i)) & 0xFF);
  return z;
}

TEST(LoaderLimits, NpzDeflatedMemberClaimingGigabytesIsRefusedBeforeInflating) {
  // 155 compressed bytes cannot inflate to 4 GB (deflate expands at most ~1032:1),
  // so the header is refused without reserving the 4 GB it claims.
  auto bytes = readFileBytes(std::string(ATTN_FIXTURE_DIR) + "/io/deflated.npz");
  ASSERT_TRUE(bytes.ok());
  const auto start = std::chrono::steady_clock::now();
  auto r = parseNpz(withDeclaredSize(*bytes, 0xFFFFFFF0u), "bomb.npz");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("bomb.npz:q.npy"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("4294967280"), std::string::npos) << r.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(LoaderLimits, NpzMemberOverByteLimitIsRefused) {
  auto bytes = readFileBytes(std::string(ATTN_FIXTURE_DIR) + "/io/stored.npz");
  ASSERT_TRUE(bytes.ok());
  ReadLimits lim;
  lim.maxBytes = 16;
  auto r = parseNpz(*bytes, "small.npz", lim);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("small.npz:q.npy"), std::string::npos) << r.error().message;
}

TEST(LoaderLimits, FileLargerThanLimitIsNotRead) {
  auto r = readFileBytes(std::string(ATTN_FIXTURE_DIR) + "/io/f4_c.npy", 10);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("f4_c.npy"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace attn

