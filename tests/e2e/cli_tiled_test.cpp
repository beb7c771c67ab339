// End-to-end: `run --exec tiled` exports the same scores (scaled logits) and
// weights as the naive path, so a tiled run's .npz is as complete as a naive one.
#include <gtest/gtest.h>

#include "attn/io/npy_reader.h"
#include "cli_runner.h"
#include "matrix_matchers.h"
#include "model_fixtures.h"

namespace attn::test {
namespace {

using attn::test::member;

TEST(CliRunTiled, NpzHasTheNaivePathsScoresAndWeights) {
  const auto dir = scratchDir("run_tiled");
  std::vector<NpyArray> npz[2];
  const char* paths[2] = {"naive", "tiled"};
  for (int p = 0; p < 2; ++p) {
    const auto out = (dir / (std::string(paths[p]) + ".npz")).string();
    const auto r = runCli({"run", "--text", "the cat sat on the mat and then it slept", "--heads", "3",
                           "--d-model", "24", "--mask", "causal", "--exec", paths[p], "--out", out, "--force"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find(std::string("exec: ") + paths[p]), std::string::npos) << r.out;
    auto z = readNpzFile(out);
    ASSERT_TRUE(z.ok()) << z.error().message;
    npz[p] = std::move(z).value();
  }
  const NpyArray *s0 = member(npz[0], "scores"), *s1 = member(npz[1], "scores");
  const NpyArray *w0 = member(npz[0], "weights"), *w1 = member(npz[1], "weights");
  ASSERT_TRUE(s0 && s1 && w0 && w1);
  ASSERT_EQ(s1->shape, (std::vector<int64_t>{3, 10, 10}));  // not [3, 0, 0]
  for (int h = 0; h < 3; ++h) {
    EXPECT_MATRIX_NEAR(s1->values.slice2d(h), s0->values.slice2d(h), 1e-5f);
    EXPECT_MATRIX_NEAR(w1->values.slice2d(h), w0->values.slice2d(h), 1e-5f);
  }
}

}  // namespace
}  // namespace attn::test
