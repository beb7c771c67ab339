// The int8 screen of greedy decoding's output projection must give the argmax of the exact
// logits (computed here in double over every row, the screen not used), on random matrices and
// on rows built to tie or differ in one unit of the last place, with banned tokens, and it must
// actually screen: only a few rows computed exactly.
#include "attn/models/generation/argmax_screen.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace attn::models {
namespace {

struct Matrix {
  std::vector<float> data;
  int64_t rows = 0, cols = 0;
  WeightTensor tensor() const {
    WeightTensor t;
    t.data = data.data();
    t.rows = rows;
    t.cols = cols;
    return t;
  }
};

Matrix randomMatrix(int64_t rows, int64_t cols, uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  Matrix m{std::vector<float>(static_cast<size_t>(rows * cols)), rows, cols};
  for (float& v : m.data) v = normal(gen);
  return m;
}

/// The reference: every row's logit in double, the first maximum, banned rows skipped.
int bruteArgmax(const Matrix& m, const float* x, const float* bias, const std::vector<int>& banned) {
  int best = -1;
  double bestValue = -HUGE_VAL;
  for (int64_t r = 0; r < m.rows; ++r) {
    if (std::binary_search(banned.begin(), banned.end(), static_cast<int>(r))) continue;
    double e = bias ? static_cast<double>(bias[r]) : 0.0;
    for (int64_t i = 0; i < m.cols; ++i)
      e += static_cast<double>(x[i]) * m.data[static_cast<size_t>(r * m.cols + i)];
    if (best < 0 || e > bestValue) best = static_cast<int>(r), bestValue = e;
  }
  return best < 0 ? 0 : best;
}

TEST(ArgmaxScreen, EqualsTheExactArgmaxOnRandomRowsAndScreensMostOut) {
  const Matrix m = randomMatrix(4000, 100, 7);  // 100 columns: the int8 rows are zero padded to 128
  const auto screen = ArgmaxScreen::build(m.tensor());
  ASSERT_NE(screen, nullptr);
  std::mt19937 gen(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> bias(4000);
  for (float& b : bias) b = 0.3f * normal(gen);
  int64_t candidates = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<float> x(100);
    const float scale = std::pow(10.0f, static_cast<float>(trial % 5) - 2.0f);  // 0.01 .. 100
    for (float& v : x) v = scale * normal(gen);
    const float* b = trial % 2 ? bias.data() : nullptr;
    const int want = bruteArgmax(m, x.data(), b, {});
    EXPECT_EQ(screen->argmax(x.data(), b, {}), want) << "trial " << trial;
    candidates += screen->lastCandidates();
    // Banning the winner (and a few others) gives the next best.
    const std::vector<int> banned{3, want, 3999};
    std::vector<int> sorted = banned;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    EXPECT_EQ(screen->argmax(x.data(), b, sorted), bruteArgmax(m, x.data(), b, sorted)) << "trial " << trial;
  }
  // The screen reads the int8 copy of every row but computes only a handful exactly.
  EXPECT_LT(candidates, 200 * 40);
}

TEST(ArgmaxScreen, RowsThatTieOrDifferInTheLastPlace) {
  Matrix m = randomMatrix(300, 64, 3);
  std::vector<float> x(64);
  for (int64_t i = 0; i < 64; ++i) x[static_cast<size_t>(i)] = 1.0f + 0.01f * static_cast<float>(i);
  // Rows 40 and 41: the same, and far above every other row: the first wins, as torch.argmax.
  for (int64_t i = 0; i < 64; ++i) {
    m.data[static_cast<size_t>(40 * 64 + i)] = 0.5f;
    m.data[static_cast<size_t>(41 * 64 + i)] = 0.5f;
  }
  {
    const auto screen = ArgmaxScreen::build(m.tensor());
    EXPECT_EQ(screen->argmax(x.data(), nullptr, {}), 40);
    EXPECT_EQ(bruteArgmax(m, x.data(), nullptr, {}), 40);
  }
  // Row 41 one unit in the last place larger in one entry: the same int8 copy, yet it wins.
  float& nudged = m.data[static_cast<size_t>(41 * 64 + 7)];
  nudged = std::nextafter(nudged, 1.0f);
  const auto screen = ArgmaxScreen::build(m.tensor());
  EXPECT_EQ(bruteArgmax(m, x.data(), nullptr, {}), 41);
  EXPECT_EQ(screen->argmax(x.data(), nullptr, {}), 41);
  EXPECT_GE(screen->lastCandidates(), 2);
  // A bias that lifts row 40 by the same tiny amount and more.
  std::vector<float> bias(300, 0.0f);
  bias[40] = 1e-5f;
  EXPECT_EQ(screen->argmax(x.data(), bias.data(), {}), bruteArgmax(m, x.data(), bias.data(), {}));
  EXPECT_EQ(screen->argmax(x.data(), bias.data(), {}), 40);
}

TEST(ArgmaxScreen, BannedNonFiniteAndStorageItCannotRead) {
  const Matrix m = randomMatrix(50, 64, 5);
  const auto screen = ArgmaxScreen::build(m.tensor());
  std::vector<float> x(64, 0.25f);
  std::vector<int> all(50);
  for (int i = 0; i < 50; ++i) all[static_cast<size_t>(i)] = i;
  EXPECT_EQ(screen->argmax(x.data(), nullptr, all), 0);  // every row banned: 0, as greedyNextToken
  x[9] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(screen->argmax(x.data(), nullptr, {}), -1);  // the caller takes the full product
  x[9] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(screen->argmax(x.data(), nullptr, {}), -1);
  // A zero row and a zero input: every logit 0, the first row.
  Matrix zero{std::vector<float>(50 * 64, 0.0f), 50, 64};
  std::vector<float> ones(64, 1.0f);
  EXPECT_EQ(ArgmaxScreen::build(zero.tensor())->argmax(ones.data(), nullptr, {}), 0);
  Matrix bad = m;
  bad.data[100] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(ArgmaxScreen::build(bad.tensor()), nullptr);
  bad.data[100] = 0.0f;
  bad.data[70] = std::numeric_limits<float>::quiet_NaN();  // max() alone would miss it
  EXPECT_EQ(ArgmaxScreen::build(bad.tensor()), nullptr);
  bad.data[70] = 0.0f;
  EXPECT_NE(ArgmaxScreen::build(bad.tensor()), nullptr);
  WeightTensor bf16;
  const char raw[4] = {};
  bf16.bf16 = raw;
  bf16.rows = 1;
  bf16.cols = 2;
  EXPECT_EQ(ArgmaxScreen::build(bf16), nullptr);
  EXPECT_EQ(ArgmaxScreen::build(WeightTensor{}), nullptr);
}

}  // namespace
}  // namespace attn::models
