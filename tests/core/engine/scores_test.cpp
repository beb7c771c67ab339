// Score functions and the mechanisms end to end, against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>

#include "attn/attn.h"
#include "attn/engine/scores.h"
#include "matrix_matchers.h"

namespace attn {
namespace {

Mat rows(std::initializer_list<std::initializer_list<float>> r) {
  Mat m(static_cast<Eigen::Index>(r.size()), static_cast<Eigen::Index>(r.begin()->size()));
  Eigen::Index i = 0;
  for (const auto& row : r) {
    Eigen::Index j = 0;
    for (float x : row) m(i, j++) = x;
    ++i;
  }
  return m;
}

TEST(Mechanisms, NamesRoundTripAndAreAllListed) {
  const auto names = allMechanisms();
  EXPECT_EQ(names, (std::vector<std::string_view>{"dot", "scaled_dot", "general", "additive", "cosine"}));
  for (auto n : names) {
    auto m = parseMechanism(n);
    ASSERT_TRUE(m.has_value()) << n;
    EXPECT_EQ(mechanismName(*m), n);
  }
  EXPECT_FALSE(parseMechanism("telepathy").has_value());
  EXPECT_TRUE(allowsDifferentQKDims(Mechanism::General));
  EXPECT_TRUE(allowsDifferentQKDims(Mechanism::Additive));
  EXPECT_FALSE(allowsDifferentQKDims(Mechanism::Cosine));
}

TEST(Scores, DotAndScaledDot) {
  const Mat q = rows({{1, 2}}), k = rows({{3, 4}, {0, 1}});
  EXPECT_MATRIX_NEAR(dotScores(q, k), rows({{11, 2}}), 1e-7);
  EXPECT_MATRIX_NEAR(scaledDotScores(q, k), rows({{11 / std::sqrt(2.0f), 2 / std::sqrt(2.0f)}}), 1e-7);
}

TEST(Scores, BilinearWithDifferentQueryAndKeyWidths) {
  // q W = [1, 2, 2]; . [1, 1, 1] = 5, . [0, 0, 1] = 2.
  const Mat q = rows({{1, 2}}), w = rows({{1, 0, 2}, {0, 1, 0}}), k = rows({{1, 1, 1}, {0, 0, 1}});
  EXPECT_MATRIX_NEAR(bilinearScores(q, k, w), rows({{5, 2}}), 1e-7);
}

TEST(Scores, AdditiveWithAndWithoutBias) {
  // W_q^T q = [0.5, 0], W_k^T k = [0, 2]; v = [1, -1]:
  // tanh(0.5) - tanh(2) = -0.5019104228; with b = [0.1, -0.5]: tanh(0.6) - tanh(1.5) = -0.3680986866.
  const Mat q = rows({{1, 0}}), k = rows({{2}}), wq = rows({{0.5f, 0}, {0, 1}}), wk = rows({{0, 1}});
  Vec v(2), b(2);
  v << 1, -1;
  b << 0.1f, -0.5f;
  EXPECT_NEAR(additiveScores(q, k, wq, wk, v, Vec())(0, 0), -0.5019104228158071, 1e-6);
  EXPECT_NEAR(additiveScores(q, k, wq, wk, v, b)(0, 0), -0.3680986866468311, 1e-6);
}

TEST(Scores, CosineIsScaleFreeAndZeroSafe) {
  const Mat q = rows({{3, 4}, {0, 0}}), k = rows({{4, 3}, {0, 5}, {-30, -40}});
  EXPECT_MATRIX_NEAR(cosineScores(q, k), rows({{0.96f, 0.8f, -1}, {0, 0, 0}}), 1e-6);
}

TEST(Scores, LogitScale) {
  EXPECT_FLOAT_EQ(logitScale(Mechanism::ScaledDot, 16, 2.0f), 0.125f);
  for (auto m : {Mechanism::Dot, Mechanism::General, Mechanism::Additive, Mechanism::Cosine})
    EXPECT_FLOAT_EQ(logitScale(m, 16, 0.5f), 2.0f) << mechanismName(m);
}

/// One head, projected input.
AttentionInput oneHead(const Mat& q, const Mat& k, const Mat& v) {
  AttentionInput in;
  in.q = {q};
  in.k = {k};
  in.v = {v};
  return in;
}

Mat softmaxRow(std::vector<double> s) {
  double m = *std::max_element(s.begin(), s.end()), z = 0;
  for (double x : s) z += std::exp(x - m);
  Mat r(1, static_cast<Eigen::Index>(s.size()));
  for (size_t j = 0; j < s.size(); ++j) r(0, static_cast<Eigen::Index>(j)) = static_cast<float>(std::exp(s[j] - m) / z);
  return r;
}

TEST(EngineMechanisms, GeneralUsesLoadedBilinearAcrossWidths) {
  // dk_q = 2, dk_k = 3: logits [5, 2] as above, temperature 2 -> [2.5, 1].
  auto in = oneHead(rows({{1, 2}}), rows({{1, 1, 1}, {0, 0, 1}}), rows({{10}, {20}}));
  in.wBilinear = {rows({{1, 0, 2}, {0, 1, 0}})};
  AttentionSpec spec;
  spec.mechanism = Mechanism::General;
  spec.temperature = 2.0f;
  auto res = runAttention(in, spec);
  ASSERT_TRUE(res.ok()) << res.error().message;
  const auto& h = res->heads[0];
  EXPECT_MATRIX_NEAR(h.rawLogits, rows({{5, 2}}), 1e-6);
  EXPECT_MATRIX_NEAR(h.scaledLogits, rows({{2.5f, 1}}), 1e-6);
  const Mat w = softmaxRow({2.5, 1});
  EXPECT_MATRIX_NEAR(h.weights, w, 1e-6);
  EXPECT_NEAR(h.output(0, 0), 10 * w(0, 0) + 20 * w(0, 1), 1e-5);
  EXPECT_EQ(h.scoreParams.wBilinear, in.wBilinear[0]);
}

TEST(EngineMechanisms, AdditiveQueriesAndKeysOfDifferentWidths) {
  // Second key: W_k^T [0] = [0, 0] -> tanh(0.6) - tanh(-0.5) with the bias.
  auto in = oneHead(rows({{1, 0}}), rows({{2}, {0}}), rows({{1, 0}, {0, 1}}));
  in.wAddQ = {rows({{0.5f, 0}, {0, 1}})};
  in.wAddK = {rows({{0, 1}})};
  Vec v(2), b(2);
  v << 1, -1;
  b << 0.1f, -0.5f;
  in.vAdd = {v};
  in.bAdd = {b};
  AttentionSpec spec;
  spec.mechanism = Mechanism::Additive;
  auto res = runAttention(in, spec);
  ASSERT_TRUE(res.ok()) << res.error().message;
  const double s0 = std::tanh(0.6) - std::tanh(1.5), s1 = std::tanh(0.6) - std::tanh(-0.5);
  EXPECT_MATRIX_NEAR(res->heads[0].rawLogits, rows({{float(s0), float(s1)}}), 1e-6);
  EXPECT_MATRIX_NEAR(res->heads[0].weights, softmaxRow({s0, s1}), 1e-6);
}

TEST(EngineMechanisms, CosineWithTemperatureSharpens) {
  auto in = oneHead(rows({{3, 4}}), rows({{4, 3}, {0, 5}, {-3, -4}}), Mat::Identity(3, 3));
  AttentionSpec spec;
  spec.mechanism = Mechanism::Cosine;
  spec.temperature = 0.1f;  // Swin v2's tau: logits cos / 0.1
  auto res = runAttention(in, spec);
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_MATRIX_NEAR(res->heads[0].scaledLogits, rows({{9.6f, 8, -10}}), 1e-5);
  EXPECT_MATRIX_NEAR(res->heads[0].weights, softmaxRow({9.6, 8, -10}), 1e-6);
}

TEST(EngineMechanisms, ScaledDotKeepsRawAndScaledApart) {
  auto in = oneHead(rows({{1, 1, 1, 1}}), rows({{1, 0, 0, 0}, {1, 1, 1, 1}}), Mat::Identity(2, 2));
  AttentionSpec spec;
  spec.mechanism = Mechanism::ScaledDot;
  auto res = runAttention(in, spec);
  ASSERT_TRUE(res.ok());
  EXPECT_MATRIX_NEAR(res->heads[0].rawLogits, rows({{1, 4}}), 1e-7);
  EXPECT_MATRIX_NEAR(res->heads[0].scaledLogits, rows({{0.5f, 2}}), 1e-7);
}

TEST(EngineMechanisms, EveryMechanismRunsSelfAndCrossFromText) {
  for (auto name : allMechanisms()) {
    AttentionSpec spec;
    spec.mechanism = *parseMechanism(name);
    spec.heads = 2;
    spec.dModel = 8;
    auto self = runAttention(inputFromTokens({"a", "b", "c"}, 8, 1), spec);
    ASSERT_TRUE(self.ok()) << name << ": " << self.error().message;
    EXPECT_EQ(self->nq(), 3);
    EXPECT_EQ(self->nk(), 3);
    EXPECT_EQ(self->output.rows(), 3);
    EXPECT_EQ(self->output.cols(), 8);
    auto cross = runAttention(inputFromTokens({"a", "b"}, 8, 1, {"x", "y", "z", "w", "v"}), spec);
    ASSERT_TRUE(cross.ok()) << name << ": " << cross.error().message;
    EXPECT_EQ(cross->nq(), 2);
    EXPECT_EQ(cross->nk(), 5);
    EXPECT_EQ(cross->keyTokens.size(), 5u);
    EXPECT_EQ(cross->heads[1].v.rows(), 5);
  }
}

TEST(EngineProjections, LoadedWeightsAndBiasesAreApplied) {
  // W_Q = W_K = W_V = I, biases b: q = k = v = x + b; one head, d = 2.
  AttentionInput in;
  in.x = rows({{1, 0}, {0, 1}});
  in.wQ = in.wK = in.wV = in.wO = Mat::Identity(2, 2);
  Vec b(2);
  b << 0.5f, -1;
  in.bQ = in.bK = in.bV = b;
  Vec bo(2);
  bo << 100, 200;
  in.bO = bo;
  AttentionSpec spec;
  spec.heads = 1;
  spec.dModel = 2;
  spec.mechanism = Mechanism::Dot;
  auto res = runAttention(in, spec);
  ASSERT_TRUE(res.ok()) << res.error().message;
  const Mat xb = rows({{1.5f, -1}, {0.5f, 0}});
  EXPECT_MATRIX_NEAR(res->heads[0].q, xb, 1e-7);
  EXPECT_MATRIX_NEAR(res->heads[0].v, xb, 1e-7);
  // Row 0 logits: [1.5^2 + 1, 0.75] = [3.25, 0.75].
  EXPECT_MATRIX_NEAR(res->heads[0].weights.row(0), softmaxRow({3.25, 0.75}), 1e-6);
  Mat expected = res->heads[0].output;
  expected.rowwise() += bo.transpose();
  EXPECT_MATRIX_NEAR(res->output, expected, 1e-6);
}

TEST(EngineProjections, BiasFlagSeedsBiasesAndChangesTheResult) {
  AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 8;
  const auto in = inputFromTokens({"a", "b", "c"}, 8, 3);
  auto plain = runAttention(in, spec);
  spec.projectionBias = true;
  auto biased = runAttention(in, spec);
  ASSERT_TRUE(plain.ok() && biased.ok());
  EXPECT_EQ(plain->bQ.size(), 0);
  ASSERT_EQ(biased->bQ.size(), 8);
  ASSERT_EQ(biased->bO.size(), 8);
  // torch.nn.Linear's bias init: U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
  EXPECT_LE(biased->bQ.cwiseAbs().maxCoeff(), 1 / std::sqrt(8.0f));
  EXPECT_GT(biased->bQ.cwiseAbs().maxCoeff(), 0.0f);
  EXPECT_EQ(plain->wQ, biased->wQ);  // the matrices do not move
  EXPECT_MATRIX_NEAR(biased->heads[0].q, (plain->heads[0].q.rowwise() + biased->bQ.head(4).transpose()).eval(),
                     1e-6);
  // Additive: the bias flag also seeds b_add.
  spec.mechanism = Mechanism::Additive;
  auto add = runAttention(in, spec);
  ASSERT_TRUE(add.ok());
  EXPECT_EQ(add->heads[0].scoreParams.bAdd.size(), 4);
}

TEST(EngineProjections, AdditiveHiddenSizeFromSpec) {
  AttentionSpec spec;
  spec.mechanism = Mechanism::Additive;
  spec.heads = 2;
  spec.dModel = 8;
  spec.hidden = 7;
  auto res = runAttention(inputFromTokens({"a", "b"}, 8, 3), spec);
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_EQ(res->heads[1].scoreParams.wAddQ.rows(), 4);
  EXPECT_EQ(res->heads[1].scoreParams.wAddQ.cols(), 7);
  EXPECT_EQ(res->heads[1].scoreParams.wAddK.cols(), 7);
  EXPECT_EQ(res->heads[1].scoreParams.vAdd.size(), 7);
}

TEST(EngineProjections, CrossAttentionWithKeysOfAnotherWidth) {
  // As torch's kdim/vdim: x_kv has 6 columns, d_model 4.
  AttentionInput in;
  in.x = Mat::Random(3, 4);
  in.xKv = Mat::Random(5, 6);
  AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 4;
  auto res = runAttention(in, spec);
  ASSERT_TRUE(res.ok()) << res.error().message;
  EXPECT_EQ(res->wK.rows(), 6);
  EXPECT_EQ(res->wK.cols(), 4);
  EXPECT_EQ(res->nq(), 3);
  EXPECT_EQ(res->nk(), 5);
  EXPECT_EQ(res->output.cols(), 4);
}

TEST(EngineInit, EveryLearnedMatrixFollowsTheScheme) {
  AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 16;
  spec.init = InitScheme::Orthogonal;
  for (auto mech : {Mechanism::General, Mechanism::Additive}) {
    spec.mechanism = mech;
    auto res = runAttention(inputFromTokens({"a", "b"}, 16, 5), spec);
    ASSERT_TRUE(res.ok());
    // [16, 16] projections: W^T W = I.
    for (const Mat* w : {&res->wQ, &res->wK, &res->wV, &res->wO})
      EXPECT_MATRIX_NEAR((w->transpose() * *w).eval(), Mat::Identity(16, 16), 1e-5);
    const auto& p = res->heads[1].scoreParams;
    const Mat& m = mech == Mechanism::General ? p.wBilinear : p.wAddQ;
    EXPECT_MATRIX_NEAR((m.transpose() * m).eval(), Mat::Identity(m.cols(), m.cols()), 1e-5);
  }
}

TEST(EngineInit, XavierBoundAndKaimingSpread) {
  const Mat x = initMatrix(64, 32, InitScheme::XavierUniform, 9, "t");
  const float bound = std::sqrt(6.0f / 96.0f);
  EXPECT_LE(x.cwiseAbs().maxCoeff(), bound);
  EXPECT_GT(x.cwiseAbs().maxCoeff(), 0.95f * bound);
  // Var of U(-a, a) is a^2 / 3 = 2 / (fan_in + fan_out).
  EXPECT_NEAR(x.squaredNorm() / x.size(), 2.0 / 96.0, 0.1 * 2.0 / 96.0);
  const Mat k = initMatrix(128, 64, InitScheme::KaimingNormal, 9, "t");
  EXPECT_NEAR(k.squaredNorm() / k.size(), 2.0 / 128.0, 0.1 * 2.0 / 128.0);
  EXPECT_NEAR(k.mean(), 0.0, 0.01);
  const Mat o = initMatrix(8, 20, InitScheme::Orthogonal, 9, "t");  // wide: rows orthonormal
  EXPECT_MATRIX_NEAR((o * o.transpose()).eval(), Mat::Identity(8, 8), 1e-5);
}

}  // namespace
}  // namespace attn
