// Properties every mechanism must have, whatever its score function: softmax
// rows are distributions, masked weights are exactly 0, keys permuted with
// their values permute the weights and leave the outputs alone, and a constant
// added to every logit of a row changes nothing.
#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "attn/attn.h"
#include "attn/backend.h"
#include "matrix_matchers.h"

namespace attn {
namespace {

struct MechanismCase {
  Mechanism mechanism;
  bool causal;
  bool cross;  // projected q/k/v of other lengths (and widths where allowed)
};

std::string caseName(const ::testing::TestParamInfo<MechanismCase>& info) {
  return std::string(mechanismName(info.param.mechanism)) + (info.param.causal ? "_causal" : "_nomask") +
         (info.param.cross ? "_cross" : "_self");
}

std::vector<MechanismCase> allCases() {
  std::vector<MechanismCase> cases;
  for (auto name : allMechanisms())
    for (bool causal : {false, true})
      for (bool cross : {false, true}) cases.push_back({*parseMechanism(name), causal, cross});
  return cases;
}

/// Without a mask: a causal mask is tied to key positions, so permuting keys changes it.
std::vector<MechanismCase> unmaskedCases() {
  std::vector<MechanismCase> cases;
  for (const auto& c : allCases())
    if (!c.causal) cases.push_back(c);
  return cases;
}

/// Mechanisms whose logits are linear in the key (dot, scaled_dot, general), projected keys.
std::vector<MechanismCase> keyLinearCases() {
  std::vector<MechanismCase> cases;
  for (const auto& c : allCases())
    if (c.cross && (c.mechanism == Mechanism::Dot || c.mechanism == Mechanism::ScaledDot ||
                    c.mechanism == Mechanism::General))
      cases.push_back(c);
  return cases;
}

class MechanismProperty : public ::testing::TestWithParam<MechanismCase> {
 protected:
  AttentionSpec spec() const {
    AttentionSpec s;
    s.mechanism = GetParam().mechanism;
    s.heads = 3;
    s.dModel = 12;
    s.hidden = 5;
    s.projectionBias = true;
    s.temperature = 0.8f;
    if (GetParam().causal) s.mask = Mask::causal();
    return s;
  }

  AttentionInput input() const {
    if (!GetParam().cross) return inputFromTokens({"the", "cat", "sat", "on", "the", "mat"}, 12, 11);
    std::mt19937 gen(5);
    std::normal_distribution<float> n(0.0f, 1.0f);
    auto randomMat = [&](int r, int c) {
      Mat m(r, c);
      for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = n(gen);
      return m;
    };
    const int dk = allowsDifferentQKDims(GetParam().mechanism) ? 7 : 4;
    AttentionInput in;
    for (int h = 0; h < 2; ++h) {
      in.q.push_back(randomMat(5, 4));
      in.k.push_back(randomMat(8, dk));
      in.v.push_back(randomMat(8, 3));
    }
    return in;
  }

  AttentionResult run(const AttentionInput& in) const {
    auto res = runAttention(in, spec());
    EXPECT_TRUE(res.ok()) << res.error().message;
    return std::move(res).value();
  }
};

TEST_P(MechanismProperty, RowsAreDistributionsAndMaskedCellsExactlyZero) {
  const auto s = spec();
  const auto res = run(input());
  for (const auto& h : res.heads) {
    ASSERT_GT(h.weights.size(), 0);
    EXPECT_TRUE(h.weights.allFinite());
    EXPECT_GE(h.weights.minCoeff(), 0.0f);
    EXPECT_LE(h.weights.maxCoeff(), 1.0f);
    for (Eigen::Index i = 0; i < h.weights.rows(); ++i) {
      EXPECT_NEAR(h.weights.row(i).sum(), 1.0f, 1e-5f) << "row " << i;
      for (Eigen::Index j = 0; j < h.weights.cols(); ++j)
        if (!s.mask.allowed(int(i), int(j))) {
          EXPECT_EQ(h.weights(i, j), 0.0f) << i << ", " << j;
          EXPECT_EQ(h.maskedLogits(i, j), -std::numeric_limits<float>::infinity());
        }
    }
  }
}

class MechanismUnmasked : public MechanismProperty {};
class MechanismKeyLinear : public MechanismProperty {};

TEST_P(MechanismUnmasked, PermutingKeysWithValuesPermutesWeightsOnly) {
  AttentionInput in = input();
  // Permute the key/value rows: in the embedding case x_kv = x reordered.
  const auto base = run(in);
  const int nk = base.nk();
  std::vector<int> perm(static_cast<size_t>(nk));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937(3));
  auto permuteRows = [&](const Mat& m) {
    Mat p(m.rows(), m.cols());
    for (int j = 0; j < nk; ++j) p.row(j) = m.row(perm[static_cast<size_t>(j)]);
    return p;
  };
  if (in.isProjected()) {
    for (auto& k : in.k) k = permuteRows(k);
    for (auto& v : in.v) v = permuteRows(v);
  } else {
    in.xKv = permuteRows(in.x);
    in.keyTokens.clear();
    for (int j = 0; j < nk; ++j) in.keyTokens.push_back(in.queryTokens[static_cast<size_t>(perm[static_cast<size_t>(j)])]);
  }
  const auto permuted = run(in);
  for (size_t h = 0; h < base.heads.size(); ++h) {
    const Mat& w = base.heads[h].weights;
    Mat expected(w.rows(), w.cols());
    for (int j = 0; j < nk; ++j) expected.col(j) = w.col(perm[static_cast<size_t>(j)]);
    EXPECT_MATRIX_NEAR(permuted.heads[h].weights, expected, 1e-5);
    EXPECT_MATRIX_NEAR(permuted.heads[h].output, base.heads[h].output, 1e-5);
  }
  EXPECT_MATRIX_NEAR(permuted.output, base.output, 1e-5);
}

TEST_P(MechanismProperty, ARowConstantAddedToTheLogitsChangesNothing) {
  const auto s = spec();
  const auto base = run(input());
  auto backend = makeCpuBackend();
  for (const auto& h0 : base.heads) {
    HeadResult h = h0;
    h.logitBias.resize(h.q.rows(), h.k.rows());
    for (Eigen::Index i = 0; i < h.logitBias.rows(); ++i) h.logitBias.row(i).setConstant(7.5f * float(i) - 20.0f);
    ASSERT_TRUE(backend->computeHead(s, h).ok());
    EXPECT_MATRIX_NEAR(h.weights, h0.weights, 1e-5);
    EXPECT_MATRIX_NEAR(h.output, h0.output, 1e-5);
  }
}

TEST_P(MechanismKeyLinear, ACommonKeyShiftIsARowConstant) {
  // For dot, scaled_dot and general a common vector c added to every key adds
  // q_i . c (resp. q_i^T W c) to all of row i: the weights must not move. The
  // other mechanisms are not shift-invariant; checked through the logit bias above.
  const auto m = GetParam().mechanism;
  AttentionInput in = input();
  ASSERT_TRUE(in.isProjected());
  const auto base = run(in);
  for (auto& k : in.k) k.rowwise() += Eigen::RowVectorXf::LinSpaced(k.cols(), -2.0f, 3.0f);
  if (m == Mechanism::General)
    for (const auto& h : base.heads) in.wBilinear.push_back(h.scoreParams.wBilinear);
  const auto shifted = run(in);
  for (size_t h = 0; h < base.heads.size(); ++h)
    EXPECT_MATRIX_NEAR(shifted.heads[h].weights, base.heads[h].weights, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(All, MechanismProperty, ::testing::ValuesIn(allCases()), caseName);
INSTANTIATE_TEST_SUITE_P(All, MechanismUnmasked, ::testing::ValuesIn(unmaskedCases()), caseName);
INSTANTIATE_TEST_SUITE_P(All, MechanismKeyLinear, ::testing::ValuesIn(keyLinearCases()), caseName);

}  // namespace
}  // namespace attn
