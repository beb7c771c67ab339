// End-to-end: every mechanism from the command line, self- and cross-attention,
// and the mechanism options' errors (one line, non-zero exit, no output file).
#include <gtest/gtest.h>

#include <algorithm>

#include "cli_runner.h"

namespace attn::test {
namespace {

const char* kMechanisms[] = {"dot", "scaled_dot", "general", "additive", "cosine"};

TEST(CliMechanisms, EveryMechanismRunsSelfAndCross) {
  const auto dir = scratchDir("mechanisms");
  for (const char* m : kMechanisms) {
    const auto self = (dir / (std::string(m) + "_self.npz")).string();
    auto r = runCli({"run", "--text", "the cat sat on the mat", "--mechanism", m, "--heads", "2", "--d-model",
                     "16", "--mask", "causal", "--out", self});
    ASSERT_EQ(r.status, 0) << m << ": " << r.err;
    EXPECT_NE(r.out.find("(2 heads, 6 x 6)"), std::string::npos) << r.out;

    const auto cross = (dir / (std::string(m) + "_cross.npz")).string();
    r = runCli({"run", "--text", "le chat", "--key-text", "the cat sat on the mat", "--mechanism", m, "--heads",
                "4", "--d-model", "16", "--bias", "--out", cross});
    ASSERT_EQ(r.status, 0) << m << ": " << r.err;
    EXPECT_NE(r.out.find("(4 heads, 2 x 6)"), std::string::npos) << r.out;
    const std::string z = readFile(cross);
    EXPECT_NE(z.find("'shape': (4, 2, 6)"), std::string::npos) << m;  // weights [H, Nq, Nk]
  }
}

TEST(CliMechanisms, HiddenSizeAndTemperatureChangeTheResult) {
  const auto dir = scratchDir("hidden");
  auto run = [&](std::vector<std::string> extra, const std::string& name) {
    std::vector<std::string> args{"run", "--text", "a b c d", "--mechanism", "additive", "--heads", "1",
                                  "--d-model", "8", "--out", (dir / name).string()};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = runCli(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return readFile(dir / name);
  };
  const auto base = run({}, "a.npz");
  EXPECT_EQ(base, run({}, "b.npz"));  // deterministic
  EXPECT_NE(base, run({"--hidden", "3"}, "c.npz"));
  EXPECT_NE(base, run({"--temperature", "0.5"}, "d.npz"));
  EXPECT_NE(base, run({"--bias"}, "e.npz"));
}

TEST(CliMechanisms, BadValuesGiveOneLineErrors) {
  const auto dir = scratchDir("mech_errors");
  const auto out = (dir / "r.npz").string();
  struct Case {
    std::vector<std::string> extra;
    const char* needle;
  };
  for (const auto& c : std::vector<Case>{{{"--mechanism", "bogus"}, "expected one of dot, scaled_dot, general"},
                                         {{"--hidden", "-2"}, "--hidden must be at least 1"},
                                         {{"--temperature", "0"}, "temperature must be a positive number"},
                                         {{"--temperature", "nan"}, "temperature"},
                                         {{"--d-model", "10", "--heads", "4"}, "d_model 10 is not divisible by 4"},
                                         {{"--heads", "0"}, "heads must be at least 1"},
                                         {{"--key-text", "  "}, "--key-text"}}) {
    std::vector<std::string> args{"run", "--text", "one two three", "--out", out};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const auto r = runCli(args);
    EXPECT_EQ(r.status, 1) << c.needle << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << "no partial output for " << c.needle;
  }
  const auto r = runCli({"run", "--text", "   ", "--out", out});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--text"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace attn::test
