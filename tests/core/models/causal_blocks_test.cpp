// The materialized forward skips, per block of rows, the keys that every row
// of the block has masked (the upper triangle of a causal map). Checked past
// the first block on the qwen2 fixture (context 256): the maps equal a
// softmax of the full logits computed here in double, and the forward that
// keeps the logits (which computes every cell) gives the same maps and
// outputs, with padding and with a head's own mask.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "attn/models/model.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

using attn::test::modelDir;

Encoding longEncoding(int n, int padded, int vocab) {
  Encoding e;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> id(0, vocab - 1);
  for (int i = 0; i < n; ++i) {
    e.ids.push_back(id(rng));
    e.typeIds.push_back(0);
    e.attention.push_back(i < n - padded ? 1 : 0);
  }
  e.tokens.resize(static_cast<size_t>(n));
  return e;
}

/// softmax of one row of masked logits in double; masked (-inf) cells 0.
std::vector<double> softmaxRow(const Mat& masked, int i) {
  const auto row = masked.row(i);
  double m = -std::numeric_limits<double>::infinity();
  for (Eigen::Index j = 0; j < row.size(); ++j) m = std::max(m, static_cast<double>(row(j)));
  std::vector<double> p(static_cast<size_t>(row.size()), 0.0);
  if (!std::isfinite(m)) return p;
  double sum = 0;
  for (Eigen::Index j = 0; j < row.size(); ++j)
    if (std::isfinite(row(j))) sum += p[static_cast<size_t>(j)] = std::exp(static_cast<double>(row(j)) - m);
  for (double& v : p) v /= sum;
  return p;
}

TEST(CausalBlocks, LongPromptMapsEqualTheFullLogitsSoftmax) {
  auto opened = Model::open(modelDir("qwen2"));
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  const Model& m = **opened;
  const int n = 250;  // two row blocks of 128, the second partial
  ASSERT_GE(m.info().maxPositions, n);
  for (const int padded : {0, 40}) {
    const Encoding e = longEncoding(n, padded, m.info().vocabSize);
    RunOptions fast;
    fast.keepQkv = false;
    fast.interventions = {HeadIntervention{InterventionKind::Mask, 1, 1, 1.0f, "window:5"}};
    RunOptions full = fast;
    full.keepLogits = true;
    auto a = m.run(e, fast);
    auto b = m.run(e, full);
    ASSERT_TRUE(a.ok() && b.ok()) << (a.ok() ? b.error().message : a.error().message);
    ASSERT_EQ(a->layers.size(), b->layers.size());
    double worstRef = 0, worstFull = 0;
    for (size_t l = 0; l < a->layers.size(); ++l)
      for (size_t h = 0; h < a->layers[l].heads.size(); ++h) {
        const Mat& w = a->layers[l].heads[h].weights;
        const HeadResult& ref = b->layers[l].heads[h];
        ASSERT_EQ(w.rows(), n);
        worstFull = std::max(worstFull, static_cast<double>((w - ref.weights).cwiseAbs().maxCoeff()));
        for (int i = 0; i < n; ++i) {
          const std::vector<double> p = softmaxRow(ref.maskedLogits, i);
          for (int j = 0; j < n; ++j) {
            worstRef = std::max(worstRef, std::abs(w(i, j) - p[static_cast<size_t>(j)]));
            if (p[static_cast<size_t>(j)] == 0.0)
              ASSERT_EQ(w(i, j), 0.0f) << l << "." << h << " " << i << "," << j;
          }
        }
      }
    EXPECT_LE(worstRef, 1e-6) << "padded " << padded;
    EXPECT_LE(worstFull, 1e-6) << "padded " << padded;
    EXPECT_LE((a->finalHidden - b->finalHidden).cwiseAbs().maxCoeff(), 1e-5f) << "padded " << padded;
    ASSERT_EQ(a->nextTokens.size(), b->nextTokens.size());
    for (size_t i = 0; i < a->nextTokens.size(); ++i)
      if (!a->nextTokens[i].empty()) EXPECT_EQ(a->nextTokens[i][0].id, b->nextTokens[i][0].id) << i;
  }
}

}  // namespace
}  // namespace attn::models
