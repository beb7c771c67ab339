// End-to-end: run --variant through attnscope-cli. Expected cells
// come from the definitions (which keys a segment sees, a span of 0, hop 1 =
// plain attention, the fp32 map = plain run), not from core.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "attn/io/npy_reader.h"
#include "cli_runner.h"

namespace attn::test {
namespace {

const char* kCliVariantsText = "the cat sat on the mat again";  // 7 tokens

std::map<std::string, NpyArray> load(const std::string& npz) {
  std::map<std::string, NpyArray> m;
  auto z = readNpzFile(npz);
  EXPECT_TRUE(z.ok()) << (z.ok() ? "" : z.error().message);
  if (z.ok())
    for (auto& a : *z) m[a.name] = std::move(a);
  return m;
}

std::string run(const std::string& name, std::vector<std::string> extra, CliResult* result = nullptr) {
  const auto out = (scratchDir("variants_" + name) / "r.npz").string();
  std::vector<std::string> args{"run", "--text", kCliVariantsText, "--heads", "2", "--d-model", "16", "--out", out};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = runCli(args);
  EXPECT_EQ(r.status, 0) << name << ": " << r.err;
  if (result) *result = r;
  return out;
}

TEST(CliVariants, SegmentMemorySeesOnlyItsMemory) {
  CliResult r;
  auto a = load(run("xl", {"--variant", "xl", "--segment", "3", "--memory", "2"}, &r));
  ASSERT_TRUE(a.count("weights") && a.count("segment_2") && a.count("reach"));
  EXPECT_EQ(a["segment_2"].values.shape, (std::vector<int64_t>{2, 3, 5}));  // 3 queries, 2 memory + 3 keys
  for (int h = 0; h < 2; ++h) {
    const Mat w = a["weights"].values.slice2d(h);
    for (int i = 0; i < 7; ++i) {
      const int start = (i / 3) * 3, first = std::max(0, start - 2);
      for (int j = 0; j < 7; ++j)
        if (j < first || j > i) EXPECT_EQ(w(i, j), 0.0f) << i << "," << j;
        else EXPECT_GT(w(i, j), 0.0f) << i << "," << j;
      EXPECT_NEAR(w.row(i).sum(), 1.0, 1e-5);
    }
  }
  EXPECT_NE(r.out.find("reach"), std::string::npos);
}

TEST(CliVariants, ZeroSpanKeepsOnlyTheQueryItself) {
  // z = 0, R = 1: m(0) = 1, m(x >= 1) = 0, so every row is one-hot on its diagonal.
  auto a = load(run("span", {"--span-z", "0", "--span-ramp", "1", "--mask", "causal"}));
  const Mat w = a["weights"].values.slice2d(1);
  EXPECT_TRUE(w.isApprox(Mat::Identity(7, 7)));
  EXPECT_EQ(a["span_z"].values.data, (std::vector<float>{0, 0}));
}

TEST(CliVariants, FirstHopIsPlainAttention) {
  auto plain = load(run("plain", {"--mask", "causal"}));
  auto a = load(run("hops", {"--hops", "3", "--mask", "causal"}));
  ASSERT_EQ(a["weights"].values.shape, (std::vector<int64_t>{3, 2, 7, 7}));
  const Mat p = plain["weights"].values.slice2d(0);
  const Mat h1 = ConstMatMap(a["weights"].values.data.data(), 7, 7);
  EXPECT_LT((p - h1).cwiseAbs().maxCoeff(), 1e-5);
}

TEST(CliVariants, PrecisionComparesWithThePlainRun) {
  auto plain = load(run("plain32", {"--mask", "causal", "--temperature", "0.05"}));
  CliResult r;
  auto a = load(run("fp16", {"--precision", "fp16", "--mask", "causal", "--temperature", "0.05"}, &r));
  const Mat p = plain["weights"].values.slice2d(1), ref = a["weights_fp32"].values.slice2d(1);
  const Mat low = a["weights"].values.slice2d(1), err = a["error"].values.slice2d(1);
  EXPECT_LT((p - ref).cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_LT((err - (low - ref).cwiseAbs()).cwiseAbs().maxCoeff(), 1e-6);
  EXPECT_NE(r.out.find("top-1 agreement"), std::string::npos);
  // T = 0.05 makes logits of tens: e^s overflows fp16 somewhere.
  EXPECT_GT(a["overflow"].values.slice2d(1).maxCoeff(), 0.0f);
  auto q = load(run("int8", {"--precision", "int8-channel", "--quantize", "proj"}));
  EXPECT_EQ(q["summary"].values.shape, (std::vector<int64_t>{2, 5}));
}

TEST(CliVariants, DynamicConvIsABandOfWidthK) {
  auto a = load(run("dynconv", {"--kernel", "3", "--mask", "causal"}));
  const Mat w = a["weights"].values.slice2d(0);
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 7; ++j)
      if (j > i || j < i - 2) EXPECT_EQ(w(i, j), 0.0f);
      else EXPECT_GT(w(i, j), 0.0f);
  EXPECT_EQ(a["kernel"].values.shape, (std::vector<int64_t>{2, 7, 3}));
}

TEST(CliVariants, BadParametersGiveOneLineAndNoFile) {
  const auto dir = scratchDir("variants_bad");
  const auto out = (dir / "bad.npz").string();
  for (const auto& extra : std::vector<std::vector<std::string>>{{"--variant", "xl", "--segment", "0"},
                                                                 {"--hops", "2", "--precision", "fp16"},
                                                                 {"--span-z", "1,2,3"},
                                                                 {"--variant", "nope"}}) {
    std::vector<std::string> args{"run", "--text", kCliVariantsText, "--heads", "2", "--d-model", "16", "--out", out};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = runCli(args);
    EXPECT_NE(r.status, 0) << extra[0];
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << extra[0];
  }
}

}  // namespace
}  // namespace attn::test
