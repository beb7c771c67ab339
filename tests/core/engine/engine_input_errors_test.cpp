// Bad input: every fault is an error that names the array(s), their shapes or
// the index of the bad value; never a crash and never a NaN in the result.
#include <gtest/gtest.h>

#include <limits>

#include "attn/attn.h"

namespace attn {
namespace {

/// The error message of a run that must fail.
std::string failure(const AttentionInput& in, const AttentionSpec& spec) {
  auto res = runAttention(in, spec);
  EXPECT_FALSE(res.ok()) << "expected an error";
  if (res.ok()) return {};
  EXPECT_EQ(res.error().message.find('\n'), std::string::npos) << "one line: " << res.error().message;
  return res.error().message;
}

#define EXPECT_HAS(msg, needle) EXPECT_NE((msg).find(needle), std::string::npos) << (msg)

AttentionSpec smallSpec(Mechanism m = Mechanism::ScaledDot) {
  AttentionSpec spec;
  spec.mechanism = m;
  spec.heads = 2;
  spec.dModel = 8;
  return spec;
}

AttentionInput projected(int heads, int nq, int nk, int dq, int dk, int dv) {
  AttentionInput in;
  for (int h = 0; h < heads; ++h) {
    in.q.push_back(Mat::Random(nq, dq));
    in.k.push_back(Mat::Random(nk, dk));
    in.v.push_back(Mat::Random(nk, dv));
  }
  return in;
}

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(EngineInputErrors, NonFiniteValuesNameArrayAndIndex) {
  auto in = inputFromTokens({"a", "b", "c"}, 8, 1);
  in.x(1, 2) = kNan;
  auto msg = failure(in, smallSpec());
  EXPECT_HAS(msg, "'x'");
  EXPECT_HAS(msg, "[1, 2]");
  EXPECT_HAS(msg, "nan");

  auto cross = inputFromTokens({"a"}, 8, 1, {"b", "c"});
  cross.xKv(0, 7) = -kInf;
  msg = failure(cross, smallSpec());
  EXPECT_HAS(msg, "'x_kv'");
  EXPECT_HAS(msg, "[0, 7]");

  auto p = projected(3, 2, 4, 5, 5, 6);
  p.k[2](3, 4) = kInf;
  msg = failure(p, smallSpec());
  EXPECT_HAS(msg, "'k'");
  EXPECT_HAS(msg, "[2, 3, 4]");
  EXPECT_HAS(msg, "inf");

  auto w = inputFromTokens({"a", "b"}, 8, 1);
  w.wV = Mat::Ones(8, 8);
  w.wV(4, 5) = kNan;
  msg = failure(w, smallSpec());
  EXPECT_HAS(msg, "'w_v'");
  EXPECT_HAS(msg, "[4, 5]");

  auto b = projected(2, 2, 2, 3, 4, 1);
  b.wBilinear = {Mat::Ones(3, 4), Mat::Ones(3, 4)};
  b.wBilinear[1](2, 0) = kInf;
  msg = failure(b, smallSpec(Mechanism::General));
  EXPECT_HAS(msg, "'w_bilinear'");
  EXPECT_HAS(msg, "[1, 2, 0]");

  auto a = projected(1, 2, 2, 3, 4, 1);
  a.vAdd = {Vec::Ones(3)};
  a.vAdd[0][2] = kNan;
  msg = failure(a, smallSpec(Mechanism::Additive));
  EXPECT_HAS(msg, "'v_add'");
  EXPECT_HAS(msg, "[0, 2]");
}

TEST(EngineInputErrors, FiniteButHugeInputsOverflowWithAnErrorNotNaN) {
  auto p = projected(1, 2, 2, 2, 2, 2);
  p.q[0].setConstant(3e30f);
  p.k[0].setConstant(3e30f);
  const auto msg = failure(p, smallSpec(Mechanism::Dot));
  EXPECT_HAS(msg, "overflow");
}

TEST(EngineInputErrors, HeadsAndDModel) {
  const auto in = inputFromTokens({"a", "b"}, 8, 1);
  auto spec = smallSpec();
  spec.heads = 0;
  EXPECT_HAS(failure(in, spec), "heads must be at least 1");
  spec.heads = 3;
  EXPECT_HAS(failure(in, spec), "d_model 8 is not divisible by 3 heads");
  spec.heads = 2;
  spec.temperature = 0.0f;
  EXPECT_HAS(failure(in, spec), "temperature");
  spec.temperature = kNan;
  EXPECT_HAS(failure(in, spec), "temperature");
  spec = smallSpec();
  spec.dModel = 6;
  EXPECT_HAS(failure(in, spec), "array 'x' has shape [2, 8] but d_model is 6");
}

TEST(EngineInputErrors, EmptySequences) {
  auto spec = smallSpec();
  EXPECT_HAS(failure(inputFromTokens({}, 8, 1), spec), "empty sequence");
  AttentionInput emptyKv = inputFromTokens({"a"}, 8, 1);
  emptyKv.xKv.resize(0, 8);
  EXPECT_HAS(failure(emptyKv, spec), "'x_kv' has no rows");
  EXPECT_HAS(failure(projected(2, 0, 3, 4, 4, 4), spec), "'q' [2, 0, 4] has no query rows");
  EXPECT_HAS(failure(projected(2, 3, 0, 4, 4, 4), spec), "'k' [2, 0, 4] has no key rows");
}

TEST(EngineInputErrors, DimsThatDoNotFitTheMechanism) {
  // dot-like mechanisms need equal widths; the message names both arrays and shapes.
  for (auto m : {Mechanism::Dot, Mechanism::ScaledDot, Mechanism::Cosine}) {
    const auto msg = failure(projected(2, 3, 4, 5, 6, 2), smallSpec(m));
    EXPECT_HAS(msg, "'q' [2, 3, 5] and 'k' [2, 4, 6]");
    EXPECT_HAS(msg, mechanismName(m));
  }
  auto kv = projected(1, 3, 4, 5, 5, 2);
  kv.v[0] = Mat::Ones(3, 2);
  EXPECT_HAS(failure(kv, smallSpec()), "'k' [1, 4, 5] and 'v' [1, 3, 2]");

  auto g = projected(2, 3, 4, 5, 6, 2);
  g.wBilinear = {Mat::Ones(6, 5), Mat::Ones(6, 5)};
  auto msg = failure(g, smallSpec(Mechanism::General));
  EXPECT_HAS(msg, "'w_bilinear' has shape [2, 6, 5]");
  EXPECT_HAS(msg, "[2, 5, 6]");
  g.wBilinear = {Mat::Ones(5, 6)};
  EXPECT_HAS(failure(g, smallSpec(Mechanism::General)), "'w_bilinear' has 1 heads but the attention has 2");

  auto a = projected(1, 3, 4, 5, 6, 2);
  a.wAddQ = {Mat::Ones(5, 7)};
  a.wAddK = {Mat::Ones(6, 8)};
  msg = failure(a, smallSpec(Mechanism::Additive));
  EXPECT_HAS(msg, "'w_add_k' has hidden size 8 but w_add_q is 7");
  a.wAddK = {Mat::Ones(5, 7)};
  EXPECT_HAS(failure(a, smallSpec(Mechanism::Additive)), "'w_add_k' has shape [1, 5, 7]");
  a.wAddK = {};
  auto spec = smallSpec(Mechanism::Additive);
  spec.hidden = 3;
  EXPECT_HAS(failure(a, spec), "'w_add_q' has hidden size 7 but the hidden size is 3");

  auto x = inputFromTokens({"a", "b"}, 8, 1);
  x.wQ = Mat::Ones(8, 6);
  msg = failure(x, smallSpec());
  EXPECT_HAS(msg, "'w_q' has shape [8, 6]");
  EXPECT_HAS(msg, "'x' [2, 8]");
  EXPECT_HAS(msg, "[8, 8]");
  x.wQ = Mat();
  x.bK = Vec::Ones(3);
  EXPECT_HAS(failure(x, smallSpec()), "'b_k' has shape [3]");
  x.bK = Vec();
  x.wO = Mat::Ones(7, 8);
  EXPECT_HAS(failure(x, smallSpec()), "'w_o' has shape [7, 8]");
}

TEST(EngineInputErrors, TokenCountsMustMatchRows) {
  auto in = inputFromTokens({"a", "b"}, 8, 1, {"c", "d", "e"});
  in.keyTokens.pop_back();
  EXPECT_HAS(failure(in, smallSpec()), "2 key tokens for 3 key rows");
}

TEST(EngineInputErrors, UnusedScoreArraysGiveAWarning) {
  auto in = projected(1, 2, 2, 3, 3, 1);
  in.wBilinear = {Mat::Ones(3, 3)};
  auto res = runAttention(in, smallSpec(Mechanism::Dot));
  ASSERT_TRUE(res.ok());
  ASSERT_EQ(res->warnings.size(), 1u);
  EXPECT_HAS(res->warnings[0], "'w_bilinear' is not used by mechanism 'dot'");
}

TEST(EngineInputErrors, EmbeddingArraysBesideProjectedInputGiveAWarning) {
  auto in = projected(1, 2, 2, 3, 3, 1);
  in.x = Mat::Ones(2, 3);
  in.wQ = Mat::Ones(3, 3);
  auto res = runAttention(in, smallSpec(Mechanism::Dot));
  ASSERT_TRUE(res.ok());
  ASSERT_EQ(res->warnings.size(), 2u);
  EXPECT_HAS(res->warnings[0], "array 'x' is not used: 'q', 'k', 'v' are given");
  EXPECT_HAS(res->warnings[1], "'w_q'");
}

}  // namespace
}  // namespace attn
