// Non-finite numbers in any input array are reported with the array's name
// and the index of the first bad value, in the file's own layout.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "attn/attn.h"

namespace attn {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kNonfiniteInputInf = std::numeric_limits<float>::infinity();

std::string errorOf(const AttentionInput& in, const AttentionSpec& spec) {
  auto r = runAttention(in, spec);
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.error().message;
}

TEST(NonFiniteInput, EmbeddingsNameArrayAndCell) {
  AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 8;
  auto in = inputFromTokens({"a", "b", "c", "d"}, 8, 3);
  in.x(2, 5) = kNaN;
  const auto msg = errorOf(in, spec);
  EXPECT_NE(msg.find("'x'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[2, 5]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nan"), std::string::npos) << msg;
}

TEST(NonFiniteInput, CrossAttentionKeyEmbeddings) {
  AttentionSpec spec;
  spec.heads = 1;
  spec.dModel = 4;
  auto in = inputFromTokens({"a", "b"}, 4, 3, {"x", "y", "z"});
  in.xKv(1, 0) = -kNonfiniteInputInf;
  const auto msg = errorOf(in, spec);
  EXPECT_NE(msg.find("'x_kv'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[1, 0]"), std::string::npos) << msg;
}

TEST(NonFiniteInput, ProjectedArraysGiveHeadRowColumn) {
  AttentionInput in;
  for (int h = 0; h < 2; ++h) {
    in.q.push_back(Mat::Ones(3, 4));
    in.k.push_back(Mat::Ones(5, 4));
    in.v.push_back(Mat::Ones(5, 2));
  }
  in.k[1](4, 3) = kNonfiniteInputInf;
  const auto msg = errorOf(in, AttentionSpec{});
  EXPECT_NE(msg.find("'k'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[1, 4, 3]"), std::string::npos) << msg;  // [H, Nk, dk]
}

TEST(NonFiniteInput, LoadedWeightsAreChecked) {
  AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 4;
  auto in = inputFromTokens({"a", "b", "c"}, 4, 3);
  in.wV = Mat::Ones(4, 4);
  in.wV(3, 1) = kNaN;
  auto msg = errorOf(in, spec);
  EXPECT_NE(msg.find("'w_v'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[3, 1]"), std::string::npos) << msg;

  in.wV = Mat();
  in.vAdd = {Vec::Ones(3), Vec::Ones(3)};
  in.vAdd[1](2) = kNonfiniteInputInf;
  msg = errorOf(in, spec);
  EXPECT_NE(msg.find("'v_add'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[1, 2]"), std::string::npos) << msg;  // [H, hidden]
}

TEST(NonFiniteInput, FiniteInputsGiveFiniteWeights) {
  AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 4;
  auto in = inputFromTokens({"a", "b", "c"}, 4, 3);
  in.x *= 1e15f;  // huge but finite logits: softmax subtracts the row max
  auto r = runAttention(in, spec);
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (const auto& h : r->heads) EXPECT_TRUE(h.weights.allFinite());
}

}  // namespace
}  // namespace attn
