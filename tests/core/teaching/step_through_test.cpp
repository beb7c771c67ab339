// The step-through's numbers, checked by hand and against the engine's row.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "attn/engine.h"
#include "attn/teaching/step_through.h"
#include "matrix_matchers.h"

namespace attn {
namespace {

Mat mat(int r, int c, std::initializer_list<float> v) {
  Mat m(r, c);
  auto it = v.begin();
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < c; ++j) m(i, j) = *it++;
  return m;
}

// q = [[1,0],[0,2],[1,1]], k = [[1,0],[0,1],[1,1]], v = [[1,0],[0,1],[2,2]].
AttentionInput toyInput() {
  AttentionInput in;
  in.q = {mat(3, 2, {1, 0, 0, 2, 1, 1})};
  in.k = {mat(3, 2, {1, 0, 0, 1, 1, 1})};
  in.v = {mat(3, 2, {1, 0, 0, 1, 2, 2})};
  in.queryTokens = {"a", "b", "c"};
  return in;
}

TEST(StepThrough, ScaledDotCausalRowByHand) {
  AttentionSpec spec;
  spec.mask = Mask::causal();
  auto res = runAttention(toyInput(), spec);
  ASSERT_TRUE(res.ok()) << res.error().message;
  auto st = stepThrough(res->heads[0], spec, 1);
  ASSERT_TRUE(st.ok()) << st.error().message;
  // q = [0, 2]: raw scores q.k_j = 0, 2, 2; scaled by 1/sqrt(2).
  EXPECT_MATRIX_NEAR(st->rawScores, Vec(Vec{{0.f, 2.f, 2.f}}), 1e-6);
  EXPECT_NEAR(st->scale, 0.70710678f, 1e-7f);
  EXPECT_MATRIX_NEAR(st->scaledScores, Vec(Vec{{0.f, 1.4142136f, 1.4142136f}}), 1e-6);
  // Causal: query 1 sees keys 0 and 1; key 2 becomes -inf and weighs exactly 0.
  EXPECT_EQ(st->allowed, (std::vector<uint8_t>{1, 1, 0}));
  EXPECT_EQ(st->maskedScores(2), -std::numeric_limits<float>::infinity());
  EXPECT_NEAR(st->rowMax, 1.4142136f, 1e-6f);
  // e^(0 - 1.41421) = 0.2431167, e^0 = 1; sum 1.2431167.
  EXPECT_NEAR(st->exps(0), 0.2431167f, 1e-6f);
  EXPECT_EQ(st->exps(2), 0.0f);
  EXPECT_NEAR(st->expSum, 1.2431167, 1e-6);
  EXPECT_NEAR(st->weights(0), 0.1955703f, 1e-6f);
  EXPECT_NEAR(st->weights(1), 0.8044297f, 1e-6f);
  EXPECT_EQ(st->weights(2), 0.0f);
  EXPECT_MATRIX_NEAR(st->output, Vec(Vec{{0.1955703f, 0.8044297f}}), 1e-6);
  // The walk agrees with the engine's own row.
  EXPECT_MATRIX_NEAR(st->weights.transpose(), res->heads[0].weights.row(1), 1e-6);
  EXPECT_MATRIX_NEAR(st->output.transpose(), res->heads[0].output.row(1), 1e-6);
  const std::vector<StepKind> expected{StepKind::QueryAndKeys, StepKind::RawScores, StepKind::Scale,
                                       StepKind::Temperature,  StepKind::Mask,      StepKind::Softmax,
                                       StepKind::WeightedSum,  StepKind::Output};
  EXPECT_EQ(st->steps(), expected);
}

TEST(StepThrough, DotWithTemperatureHasNoScaleStep) {
  AttentionSpec spec;
  spec.mechanism = Mechanism::Dot;
  spec.temperature = 2.0f;
  auto res = runAttention(toyInput(), spec);
  ASSERT_TRUE(res.ok()) << res.error().message;
  auto st = stepThrough(res->heads[0], spec, 2);  // q = [1, 1]: scores 1, 1, 2; halved
  ASSERT_TRUE(st.ok());
  EXPECT_FALSE(st->scaled);
  EXPECT_MATRIX_NEAR(st->temperedScores, Vec(Vec{{0.5f, 0.5f, 1.0f}}), 1e-6);
  // softmax([0.5, 0.5, 1]) = [1, 1, e^0.5] / (2 + e^0.5)
  const float e = std::exp(0.5f), z = 2.0f + e;
  EXPECT_MATRIX_NEAR(st->weights, Vec(Vec{{1 / z, 1 / z, e / z}}), 1e-6);
  for (auto s : st->steps()) EXPECT_NE(s, StepKind::Scale);
  EXPECT_MATRIX_NEAR(st->weights.transpose(), res->heads[0].weights.row(2), 1e-6);
  // weighted values are the rows a_j v_j; their sum is the output.
  EXPECT_MATRIX_NEAR(st->weightedValues.row(2), Vec(Vec{{2 * e / z, 2 * e / z}}).transpose(), 1e-6);
}

TEST(StepThrough, AdditiveScoresByHand) {
  AttentionSpec spec;
  auto res = runAttention(toyInput(), spec);
  ASSERT_TRUE(res.ok());
  const Mat wq = mat(2, 2, {1, 0, 0, 1});
  const Mat wk = mat(2, 2, {0, 1, 1, 0});
  const Vec vAdd{{1.f, 2.f}};
  auto st = additiveStepThrough(res->heads[0], wq, wk, vAdd, spec, 0);  // q = [1, 0]
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_MATRIX_NEAR(st->wqQ, Vec(Vec{{1.f, 0.f}}), 1e-6);
  // k_0 = [1,0] -> W_k^T k = [0,1]; + [1,0] = [1,1]; tanh = 0.7615942 each; v. = 3 * 0.7615942
  // k_1 = [0,1] -> [1,0]; + [1,0] = [2,0]; tanh = [0.9640276, 0]; v. = 0.9640276
  EXPECT_MATRIX_NEAR(st->tanhSum.row(0), Vec(Vec{{0.7615942f, 0.7615942f}}).transpose(), 1e-6);
  EXPECT_NEAR(st->rawScores(0), 2.2847827f, 1e-6f);
  EXPECT_NEAR(st->rawScores(1), 0.9640276f, 1e-6f);
  EXPECT_EQ(st->steps()[1], StepKind::AdditiveProjections);
  EXPECT_NEAR(st->weights.sum(), 1.0f, 1e-6f);
}

TEST(StepThrough, AdditiveWalkAgreesWithTheEnginesAdditiveHead) {
  AttentionSpec spec;
  spec.mechanism = Mechanism::Additive;
  spec.mask = Mask::causal();
  auto res = runAttention(toyInput(), spec);
  ASSERT_TRUE(res.ok()) << res.error().message;
  for (int row = 0; row < 3; ++row) {
    auto st = stepThrough(res->heads[0], spec, row);
    ASSERT_TRUE(st.ok()) << st.error().message;
    EXPECT_TRUE(st->additive);
    EXPECT_MATRIX_NEAR(st->weights.transpose(), res->heads[0].weights.row(row), 1e-5);
    EXPECT_MATRIX_NEAR(st->output.transpose(), res->heads[0].output.row(row), 1e-5);
  }
}

TEST(StepThrough, GeneralScoresByHand) {
  // W = [[0, 1], [2, 0]]: u = q^T W; for query 2, q = [1, 1] -> u = [2, 1];
  // s_j = u . k_j = 2, 1, 3 for k = [1,0], [0,1], [1,1].
  AttentionInput in = toyInput();
  in.wBilinear = {mat(2, 2, {0, 1, 2, 0})};
  AttentionSpec spec;
  spec.mechanism = Mechanism::General;
  auto res = runAttention(in, spec);
  ASSERT_TRUE(res.ok()) << res.error().message;
  auto st = stepThrough(res->heads[0], spec, 2);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_TRUE(st->general);
  EXPECT_MATRIX_NEAR(st->qW, Vec(Vec{{2.f, 1.f}}), 1e-6);
  EXPECT_MATRIX_NEAR(st->rawScores, Vec(Vec{{2.f, 1.f, 3.f}}), 1e-6);
  EXPECT_FLOAT_EQ(st->scale, 1.0f);  // general is not scaled by sqrt(d_k)
  // softmax(2, 1, 3): e^-1, e^-2, 1 over 1.5032147 = 0.2447285, 0.0900306, 0.6652410.
  EXPECT_MATRIX_NEAR(st->weights, Vec(Vec{{0.2447285f, 0.0900306f, 0.6652410f}}), 1e-6);
  EXPECT_MATRIX_NEAR(st->weights.transpose(), res->heads[0].weights.row(2), 1e-6);
  EXPECT_MATRIX_NEAR(st->output.transpose(), res->heads[0].output.row(2), 1e-6);
  const auto steps = st->steps();
  ASSERT_GE(steps.size(), 3u);
  EXPECT_EQ(steps[1], StepKind::BilinearProjection);
  EXPECT_EQ(steps[2], StepKind::RawScores);
}

TEST(StepThrough, CosineScoresByHand) {
  // Query 1: q = [0, 2], |q| = 2, q^ = [0, 1]; |k| = 1, 1, sqrt 2;
  // cosines 0, 1, 1/sqrt 2 = 0.7071068.
  AttentionSpec spec;
  spec.mechanism = Mechanism::Cosine;
  auto res = runAttention(toyInput(), spec);
  ASSERT_TRUE(res.ok()) << res.error().message;
  auto st = stepThrough(res->heads[0], spec, 1);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_TRUE(st->cosine);
  EXPECT_FLOAT_EQ(st->qNorm, 2.0f);
  EXPECT_MATRIX_NEAR(st->qUnit, Vec(Vec{{0.f, 1.f}}), 1e-6);
  EXPECT_MATRIX_NEAR(st->kNorms, Vec(Vec{{1.f, 1.f, 1.4142136f}}), 1e-6);
  EXPECT_MATRIX_NEAR(st->rawScores, Vec(Vec{{0.f, 1.f, 0.7071068f}}), 1e-6);
  EXPECT_MATRIX_NEAR(st->weights.transpose(), res->heads[0].weights.row(1), 1e-6);
  EXPECT_MATRIX_NEAR(st->output.transpose(), res->heads[0].output.row(1), 1e-6);
  EXPECT_EQ(st->steps()[1], StepKind::CosineNormalize);
}

TEST(StepThrough, RejectsRowOutOfRangeAndBadShapes) {
  AttentionSpec spec;
  auto res = runAttention(toyInput(), spec);
  ASSERT_TRUE(res.ok());
  auto bad = stepThrough(res->heads[0], spec, 3);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("query row 3"), std::string::npos);
  auto badAdd = additiveStepThrough(res->heads[0], Mat::Zero(3, 2), Mat::Zero(2, 2), Vec::Zero(2), spec, 0);
  ASSERT_FALSE(badAdd.ok());
  EXPECT_NE(badAdd.error().message.find("w_add_q"), std::string::npos);
}

}  // namespace
}  // namespace attn
