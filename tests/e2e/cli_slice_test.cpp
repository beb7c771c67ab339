// End-to-end: the CLI as a user runs it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "cli_runner.h"

namespace attn::test {
namespace {

const char* kCliSliceText = "The animal didn't cross the street because it was too tired.";

uint32_t be32(const std::string& s, size_t off) {
  return (uint32_t(uint8_t(s[off])) << 24) | (uint32_t(uint8_t(s[off + 1])) << 16) |
         (uint32_t(uint8_t(s[off + 2])) << 8) | uint32_t(uint8_t(s[off + 3]));
}

TEST(CliRun, WritesNpzThatNumpyCanRead) {
  const auto dir = scratchDir("run");
  const auto out = (dir / "result.npz").string();
  const auto r = runCli({"run", "--text", kCliSliceText, "--heads", "2", "--mask", "causal", "--seed", "3", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string z = readFile(out);
  ASSERT_GT(z.size(), 100u);
  EXPECT_EQ(z.substr(0, 4), std::string("PK\x03\x04", 4));  // zip local header
  for (const char* name : {"scores.npy", "weights.npy", "output.npy", "entropy.npy", "tokens.npy"})
    EXPECT_NE(z.find(name), std::string::npos) << name;
  // The first member's data is an .npy: magic, version 1.0, float32 of shape (2, 14, 14).
  const size_t nameLen = uint8_t(z[26]) | (uint8_t(z[27]) << 8);
  const std::string npy = z.substr(30 + nameLen, 128);
  EXPECT_EQ(npy.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(npy.find("'descr': '<f4'"), std::string::npos);
  EXPECT_NE(npy.find("'shape': (2, 14, 14)"), std::string::npos);
  // No temporary file left beside it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
}

TEST(CliExport, WritesPngOfRequestedSizeWithContent) {
  ATTN_SKIP_WITHOUT_FIGURES();
  const auto dir = scratchDir("export");
  const auto out = (dir / "fig.png").string();
  const auto r = runCli({"export", "--text", kCliSliceText, "--head", "2", "--size", "640x480", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string png = readFile(out);
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  EXPECT_EQ(be32(png, 16), 640u);
  EXPECT_EQ(be32(png, 20), 480u);
  // Pixel content is checked in the ui suite (decoding needs Qt); here the
  // compressed size is a cheap proxy: a one-colour 640x480 PNG is under 2 KB.
  EXPECT_GT(png.size(), 8000u);
}

TEST(CliErrors, BadOptionGivesNonZeroAndOneLine) {
  const auto r = runCli({"run", "--text", kCliSliceText, "--heads", "two", "--out", "/tmp/x.npz"});
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("--heads"), std::string::npos) << r.err;
}

TEST(CliErrors, BadValuesAreNamed) {
  const auto dir = scratchDir("errors");
  const auto out = (dir / "r.npz").string();
  struct Case { std::vector<std::string> extra; const char* needle; };
  for (const auto& c : std::vector<Case>{{{"--mask", "sideways"}, "--mask"},
                                         {{"--heads", "3"}, "not divisible"},
                                         {{"--mechanism", "telepathy"}, "--mechanism"},
                                         {{"--heads", "0"}, "heads"}}) {
    std::vector<std::string> args{"run", "--text", kCliSliceText, "--out", out};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const auto r = runCli(args);
    EXPECT_EQ(r.status, 1) << c.needle;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << "no partial output for " << c.needle;
  }
}

}  // namespace
}  // namespace attn::test

namespace attn::test {
namespace {

TEST(CliOverwrite, RefusesExistingFileUnlessForced) {
  const auto dir = scratchDir("overwrite");
  const auto out = (dir / "r.npz").string();
  { std::ofstream(out) << "precious"; }
  auto r = runCli({"run", "--text", "a b c", "--out", out});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--force"), std::string::npos) << r.err;
  EXPECT_EQ(readFile(out), "precious");
  r = runCli({"run", "--text", "a b c", "--out", out, "--force"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(readFile(out).substr(0, 2), "PK");
}

TEST(CliMetrics, JsonHasEveryHeadWithBoundedEntropy) {
  const auto r = runCli({"metrics", "--text", "one two three four", "--heads", "2", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"head\": 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"entropy_mean\""), std::string::npos);
  EXPECT_EQ(r.out.find("\"head\": 3"), std::string::npos);
}

}  // namespace
}  // namespace attn::test
