// End-to-end: --mask (every family, compositions, a file's 'mask', a session's
// custom bitmap) and --pos (every encoding) through attnscope-cli; bad specs
// give one line naming the spec, a non-zero exit and no output file.
// Expected cells come from brute-force predicates written here, not from core.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "attn/io/npy_reader.h"
#include "attn/io/session.h"
#include "cli_runner.h"

namespace attn::test {
namespace {

constexpr int kN = 6;
const char* kCliMasksText = "the cat sat on a mat";

Mat weightsOf(const std::string& npz, int head) {
  auto z = readNpzFile(npz);
  EXPECT_TRUE(z.ok()) << (z.ok() ? "" : z.error().message);
  if (!z.ok()) return {};
  for (const auto& a : *z)
    if (a.name == "weights") return Mat(a.values.slice2d(head));
  ADD_FAILURE() << npz << " has no 'weights'";
  return {};
}

std::string runMasked(const std::filesystem::path& dir, const std::string& name, std::vector<std::string> extra) {
  const auto out = (dir / (name + ".npz")).string();
  std::vector<std::string> args{"run", "--text", kCliMasksText, "--heads", "2", "--d-model", "16", "--out", out, "--force"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = runCli(args);
  EXPECT_EQ(r.status, 0) << name << ": " << r.err;
  return out;
}

// Masked cells exactly 0, kept cells positive, kept rows summing to 1.
void expectMaskedExactly(const Mat& w, const std::function<bool(int, int)>& keep, const std::string& what) {
  ASSERT_EQ(w.rows(), kN) << what;
  ASSERT_EQ(w.cols(), kN) << what;
  for (int i = 0; i < kN; ++i) {
    bool any = false;
    for (int j = 0; j < kN; ++j) {
      if (keep(i, j)) {
        EXPECT_GT(w(i, j), 0.0f) << what << " (" << i << ", " << j << ") should be kept";
        any = true;
      } else {
        EXPECT_EQ(w(i, j), 0.0f) << what << " (" << i << ", " << j << ") should be masked";
      }
    }
    EXPECT_NEAR(w.row(i).sum(), any ? 1.0f : 0.0f, 1e-5f) << what << " row " << i;
  }
}

TEST(CliMask, EveryFamilyAndCompositionMasksExactlyItsCells) {
  const auto dir = scratchDir("masks_families");
  struct Case {
    std::string spec;
    std::function<bool(int, int)> keep;
  };
  const std::vector<Case> cases = {
      {"none", [](int, int) { return true; }},
      {"causal", [](int i, int j) { return j <= i; }},
      {"padding:4", [](int, int j) { return j < 4; }},
      {"window:1", [](int i, int j) { return std::abs(i - j) <= 1; }},
      {"dilated:1,2", [](int i, int j) { return std::abs(i - j) <= 2 && (i - j) % 2 == 0; }},
      {"global:2", [](int i, int j) { return i == 2 || j == 2; }},
      {"block:4", [](int i, int j) { return i / 4 == j / 4; }},
      // Compositions: patterns are a union, causal/padding restrict it.
      {"causal+window:1", [](int i, int j) { return j <= i && i - j <= 1; }},
      {"global:0+window:1", [](int i, int j) { return i == 0 || j == 0 || std::abs(i - j) <= 1; }},
      {"block:2+padding:3", [](int i, int j) { return i / 2 == j / 2 && j < 3; }},  // rows 4, 5: all masked
  };
  for (const auto& c : cases) {
    const auto out = runMasked(dir, "m" + std::to_string(&c - cases.data()), {"--mask", c.spec});
    for (int h = 0; h < 2; ++h) expectMaskedExactly(weightsOf(out, h), c.keep, c.spec);
  }
}

TEST(CliMask, RandomIsSeededAndBetweenNoneAndAll) {
  const auto dir = scratchDir("masks_random");
  const Mat a = weightsOf(runMasked(dir, "a", {"--mask", "random:0.5,7"}), 0);
  const Mat b = weightsOf(runMasked(dir, "b", {"--mask", "random:0.5,7"}), 0);
  const Mat c = weightsOf(runMasked(dir, "c", {"--mask", "random:0.5,8"}), 0);
  EXPECT_EQ(a, b);  // same seed, same cells
  const auto zeros = [](const Mat& m) { return (m.array() == 0.0f).count(); };
  EXPECT_GT(zeros(a), 3);
  EXPECT_LT(zeros(a), kN * kN - 3);
  EXPECT_NE((a.array() == 0.0f).matrix(), (c.array() == 0.0f).matrix());  // another seed, other cells
}

TEST(CliMask, FullyMaskedRowsAreWarnedAbout) {
  const auto dir = scratchDir("masks_rows");
  const auto r = runCli({"run", "--text", kCliMasksText, "--mask", "block:2+padding:3", "--out", (dir / "r.npz").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("2 query row(s) have every key masked"), std::string::npos) << r.err;
}

TEST(CliMask, BadSpecsGiveOneLineNamingTheSpec) {
  const auto dir = scratchDir("masks_bad");
  const auto out = (dir / "r.npz").string();
  struct Case {
    std::string spec, needle;
  };
  for (const auto& c : std::vector<Case>{
           {"window:0", "--mask: mask 'window:0': term 'window:0': window must be at least 1 (got 0)"},
           {"global:99", "mask 'global:99': global index 99 is past the sequence (8 query, 8 key positions)"},
           {"sideways", "unknown mask 'sideways'"},
           {"causal+", "empty term"},
           {"dilated:2", "expected dilated:W,D"},
           {"random:2,1", "probability '2' is not a number in [0, 1]"},
           {"custom", "no custom mask was given"}}) {
    const auto r = runCli({"run", "--text", "a b c d e f g h", "--mask", c.spec, "--out", out});
    EXPECT_NE(r.status, 0) << c.spec;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << "want '" << c.needle << "' in: " << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.spec;
  }
}

TEST(CliMask, FileMaskIsAppliedAndComposes) {
  // contract_qkv.npz holds mask = tril(ones(4, 4)) (tests/scripts/gen_input_fixtures.py).
  const std::string file = std::string(ATTN_FIXTURE_DIR) + "/io/contract_qkv.npz";
  const auto dir = scratchDir("masks_file");
  auto run = [&](const std::string& name, std::vector<std::string> extra) {
    const auto out = (dir / (name + ".npz")).string();
    std::vector<std::string> args{"run", "--input", file, "--out", out};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = runCli(args);
    EXPECT_EQ(r.status, 0) << name << ": " << r.err;
    EXPECT_EQ(r.err.find("not applied"), std::string::npos) << r.err;
    auto z = readNpzFile(out).value();
    std::vector<Mat> heads;
    for (const auto& a : z)
      if (a.name == "weights")
        for (int h = 0; h < 2; ++h) heads.push_back(Mat(a.values.slice2d(h)));
    return heads;
  };
  const auto tril = [](int i, int j) { return j <= i; };
  for (const Mat& w : run("file", {})) {
    ASSERT_EQ(w.rows(), 4);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        if (tril(i, j)) EXPECT_GT(w(i, j), 0.0f); else EXPECT_EQ(w(i, j), 0.0f);
      }
  }
  // padding:2 restricts the file's pattern: keys 0 and 1 only, and only the past.
  for (const Mat& w : run("padded", {"--mask", "padding:2"}))
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        if (j <= i && j < 2) EXPECT_GT(w(i, j), 0.0f); else EXPECT_EQ(w(i, j), 0.0f);
      }
  // global:3 joins the pattern (a union): key 3 visible to every query, row 3 full.
  for (const Mat& w : run("global", {"--mask", "global:3"}))
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) EXPECT_EQ(w(i, j) > 0.0f, j <= i || j == 3 || i == 3) << i << "," << j;
}

TEST(CliMask, SessionKeepsItsCustomBitmap) {
  const auto dir = scratchDir("masks_session");
  Session s;
  s.input.text = "a b c";
  s.spec.heads = 1;
  s.spec.dModel = 8;
  const std::vector<uint8_t> keep = {0, 1, 1,  //
                                     1, 0, 1,  //
                                     0, 0, 1};
  s.spec.mask = Mask::custom(keep, 3, 3);
  const auto json = (dir / "s.json").string();
  ASSERT_TRUE(saveSession(json, s).ok());
  const auto out = (dir / "r.npz").string();
  const auto r = runCli({"run", "--input", json, "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const Mat w = weightsOf(out, 0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(w(i, j) > 0.0f, keep[static_cast<size_t>(i * 3 + j)] != 0) << i << j;
  EXPECT_FLOAT_EQ(w(2, 2), 1.0f);  // the only key row 2 keeps
}

TEST(CliPos, EveryEncodingRunsAndChangesTheWeights) {
  const auto dir = scratchDir("pos");
  const Mat none = weightsOf(runMasked(dir, "none", {"--pos", "none"}), 0);
  for (const char* p : {"sinusoidal", "learned", "rope", "alibi", "t5"}) {
    const Mat w = weightsOf(runMasked(dir, p, {"--pos", p}), 0);
    ASSERT_EQ(w.rows(), kN) << p;
    EXPECT_GT((w - none).cwiseAbs().maxCoeff(), 1e-3f) << p << " did not change the weights";
    for (int i = 0; i < kN; ++i) EXPECT_NEAR(w.row(i).sum(), 1.0f, 1e-5f) << p;
    // Positions compose with a mask: causal cells stay exactly 0.
    const Mat c = weightsOf(runMasked(dir, std::string(p) + "_causal", {"--pos", p, "--mask", "causal"}), 1);
    for (int i = 0; i < kN; ++i)
      for (int j = i + 1; j < kN; ++j) EXPECT_EQ(c(i, j), 0.0f) << p;
  }
}

TEST(CliPos, UnknownEncodingGivesOneLineError) {
  const auto dir = scratchDir("pos_bad");
  const auto out = (dir / "r.npz").string();
  const auto r = runCli({"run", "--text", kCliMasksText, "--pos", "spiral", "--out", out});
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("--pos: unknown positional encoding 'spiral'"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace attn::test
