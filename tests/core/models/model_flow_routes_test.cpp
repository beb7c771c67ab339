// Information flow routes (core/attn/models/attribution/flow_routes.h, Ferrando & Voita 2024)
// on the causal fixtures against reference_routes.npz (tests/scripts/gen_flow_routes_fixtures.py:
// float64 from the plain-PyTorch forward's layer inputs, values, W_O, MLP and layer outputs,
// each block's whole checked against the forward's own): every edge's importance, the blocks'
// sums, Algorithm 1's route; a hand-made graph for the route's rules; the errors.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>

#include "attn/io/npy_reader.h"
#include "attn/models/attribution/flow_routes.h"
#include "attn/models/model.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

using attn::test::loadNpz;
using attn::test::modelDir;

Encoding routesEncoding(const std::map<std::string, NpyArray>& ref, int c) {
  Encoding e;
  for (float v : ref.at(fmt::format("ids_{}", c)).values.data) e.ids.push_back(static_cast<int>(v));
  for (float v : ref.at(fmt::format("mask_{}", c)).values.data)
    e.attention.push_back(static_cast<uint8_t>(v));
  e.typeIds.assign(e.ids.size(), 0);
  e.tokens.resize(e.ids.size());
  return e;
}

/// The reference's importances as a FlowRoutes (to run routeEdges on them alone).
FlowRoutes routesFromReference(const std::map<std::string, NpyArray>& want, int c) {
  const auto& a = want.at(fmt::format("flow_attn_{}", c));
  const int L = static_cast<int>(a.shape[0]), H = static_cast<int>(a.shape[1]),
            n = static_cast<int>(a.shape[2]);
  FlowRoutes r;
  r.attnImportance.assign(static_cast<size_t>(L), std::vector<Mat>(static_cast<size_t>(H), Mat(n, n)));
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h)
      std::copy_n(a.values.data.data() + (static_cast<size_t>(l) * H + h) * n * n, n * n,
                  r.attnImportance[l][h].data());
  auto rows = [&](const std::string& key, Mat& m) {
    m.resize(L, n);
    std::copy_n(want.at(fmt::format("{}_{}", key, c)).values.data.data(), L * n, m.data());
  };
  rows("flow_attn_residual", r.attnResidualImportance);
  rows("flow_mlp", r.mlpImportance);
  rows("flow_mlp_residual", r.mlpResidualImportance);
  return r;
}

/// Edges equal to the reference's route [E, 6] (layer, kind, head, from, to, importance).
void expectRoute(const std::vector<RouteEdge>& got, const NpyArray& want, double tol) {
  const size_t e = want.shape.empty() ? 0 : static_cast<size_t>(want.shape[0]);
  ASSERT_EQ(got.size(), e);
  for (size_t k = 0; k < e; ++k) {
    const float* w = want.values.data.data() + k * 6;
    SCOPED_TRACE(fmt::format("edge {}", k));
    EXPECT_EQ(got[k].layer, static_cast<int>(w[0]));
    EXPECT_EQ(static_cast<int>(got[k].kind), static_cast<int>(w[1]));
    EXPECT_EQ(got[k].head, static_cast<int>(w[2]));
    EXPECT_EQ(got[k].from, static_cast<int>(w[3]));
    EXPECT_EQ(got[k].to, static_cast<int>(w[4]));
    EXPECT_NEAR(got[k].importance, w[5], tol);
  }
}

class FlowRoutesReference : public ::testing::TestWithParam<std::string> {};

TEST_P(FlowRoutesReference, ImportancesAndRouteMatchPlainPyTorch) {
  const std::string name = GetParam();
  auto model = Model::open(modelDir(name));
  ASSERT_TRUE(model.ok()) << model.error().message;
  const auto ref = loadNpz(modelDir(name) + "/reference.npz");
  const auto want = loadNpz(modelDir(name) + "/reference_routes.npz");
  const int L = (*model)->info().layers, H = (*model)->info().heads;
  int cases = 0;
  while (want.count(fmt::format("route_{}", cases))) ++cases;
  ASSERT_GT(cases, 0);
  for (int c = 0; c < cases; ++c) {
    SCOPED_TRACE(fmt::format("{} case {}", name, c));
    const Encoding enc = routesEncoding(ref, c);
    const int n = enc.size();
    auto got = (*model)->flowRoutes(enc, FlowRouteOptions{});
    ASSERT_TRUE(got.ok()) << got.error().message;
    const auto& a = want.at(fmt::format("flow_attn_{}", c));
    ASSERT_EQ(a.shape, (std::vector<int64_t>{L, H, n, n}));
    const size_t nn = static_cast<size_t>(n) * n;
    for (int l = 0; l < L; ++l) {
      for (int h = 0; h < H; ++h)
        EXPECT_LE(attn::test::maxAbsDiff(got->attnImportance[l][h].data(), a.values.data,
                                         (static_cast<size_t>(l) * H + h) * nn, nn),
                  1e-4)
            << "layer " << l << " head " << h;
      for (auto [key, m] : {std::pair{"flow_attn_residual", &got->attnResidualImportance},
                            std::pair{"flow_mlp", &got->mlpImportance},
                            std::pair{"flow_mlp_residual", &got->mlpResidualImportance}})
        EXPECT_LE(attn::test::maxAbsDiff(m->row(l).data(), want.at(fmt::format("{}_{}", key, c)).values.data,
                                         static_cast<size_t>(l) * n, static_cast<size_t>(n)),
                  1e-4)
            << key << " layer " << l;
      for (int i = 0; i < n; ++i) {  // each block's parts share all of its output
        double attn = got->attnResidualImportance(l, i);
        for (int h = 0; h < H; ++h) attn += got->attnImportance[l][h].row(i).sum();
        EXPECT_NEAR(attn, 1.0, 1e-5);
        EXPECT_NEAR(got->mlpImportance(l, i) + got->mlpResidualImportance(l, i), 1.0, 1e-5);
        for (int h = 0; h < H; ++h)
          for (int j = i + 1; j < n; ++j) EXPECT_EQ(got->attnImportance[l][h](i, j), 0.0f);
      }
    }
    EXPECT_EQ(got->position, n - 1);
    const auto& route = want.at(fmt::format("route_{}", c));
    expectRoute(got->edges, route, 1e-4);
    expectRoute(routeEdges(routesFromReference(want, c), n - 1, 0.04), route, 1e-6);
  }
}

INSTANTIATE_TEST_SUITE_P(CausalFamilies, FlowRoutesReference, ::testing::Values("gpt2", "llama", "qwen2"));

/// Two layers, one head, three tokens, every importance set by hand.
FlowRoutes handMadeRoutes() {
  FlowRoutes r;
  r.attnImportance.assign(2, std::vector<Mat>(1, Mat::Zero(3, 3)));
  r.attnResidualImportance = Mat::Constant(2, 3, 0.5f);
  r.mlpImportance = Mat::Constant(2, 3, 0.3f);
  r.mlpResidualImportance = Mat::Constant(2, 3, 0.7f);
  r.mlpImportance(1, 2) = 0.02f;  // below 0.04: dropped, the residual carries token 2 down
  r.mlpResidualImportance(1, 2) = 0.98f;
  r.attnImportance[1][0](2, 0) = 0.45f;  // layer 1: token 2 reads token 0
  r.attnImportance[1][0](2, 2) = 0.03f;  // below the threshold
  r.attnImportance[1][0](1, 0) = 0.5f;   // token 1 is never reached: not on the route
  r.attnImportance[0][0](0, 0) = 0.5f;
  r.attnImportance[0][0](2, 1) = 0.5f;
  return r;
}

TEST(FlowRoutesAlgorithm, KeepsEdgesAtOrAboveTheThresholdFromReachedNodesOnly) {
  const FlowRoutes r = handMadeRoutes();
  const auto edges = routeEdges(r, 2, 0.04);
  std::vector<std::string> got;
  for (const auto& e : edges)
    got.push_back(fmt::format("{} {} {} {}->{}", e.layer, routeEdgeKindName(e.kind), e.head, e.from, e.to));
  const std::vector<std::string> want = {"1 mlp_residual -1 2->2", "1 head 0 0->2", "1 attn_residual -1 2->2",
                                         // layer 0: tokens 0 and 2 reached (not 1)
                                         "0 mlp -1 0->0", "0 mlp_residual -1 0->0", "0 mlp -1 2->2",
                                         "0 mlp_residual -1 2->2", "0 head 0 0->0", "0 attn_residual -1 0->0",
                                         "0 head 0 1->2", "0 attn_residual -1 2->2"};
  EXPECT_EQ(got, want);
  // at 0.5 (>=): the 0.5 edges stay, 0.45 and 0.3 go
  const auto strict = routeEdges(r, 2, 0.5);
  for (const auto& e : strict) EXPECT_GE(e.importance, 0.5f);
  // layer 1: the residuals only (token 2 stays); layer 0: token 2's MLP residual, head 1->2, residual
  EXPECT_EQ(strict.size(), 5u);
}

TEST(FlowRoutesAlgorithm, PositionOutsideGivesNoEdgesAndOptionsAreChecked) {
  EXPECT_TRUE(routeEdges(handMadeRoutes(), 3, 0.04).empty());
  EXPECT_TRUE(checkFlowRouteOptions({-1, 0.04}, 5).ok());
  EXPECT_TRUE(checkFlowRouteOptions({4, 1.0}, 5).ok());
  for (double bad : {0.0, -0.1, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    auto st = checkFlowRouteOptions({-1, bad}, 5);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.error().message.find("threshold"), std::string::npos);
  }
  for (int bad : {5, -2}) {
    auto st = checkFlowRouteOptions({bad, 0.04}, 5);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.error().message.find("position"), std::string::npos);
  }
}

TEST(FlowRoutesModel, RefusesBertAndBadOptionsAndCancels) {
  auto bert = Model::open(modelDir("bert"));
  ASSERT_TRUE(bert.ok());
  auto benc = (*bert)->encode("the cat sat", std::nullopt, "test");
  ASSERT_TRUE(benc.ok());
  auto refused = (*bert)->flowRoutes(*benc, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("causal language models"), std::string::npos)
      << refused.error().message;
  auto gpt2 = Model::open(modelDir("gpt2"));
  ASSERT_TRUE(gpt2.ok());
  auto enc = (*gpt2)->encode("The cat sat on the mat.", std::nullopt, "test");
  ASSERT_TRUE(enc.ok());
  auto far = (*gpt2)->flowRoutes(*enc, {enc->size(), 0.04});
  ASSERT_FALSE(far.ok());
  EXPECT_NE(far.error().message.find("config.json"), std::string::npos) << far.error().message;
  auto cancelled = (*gpt2)->flowRoutes(*enc, {}, [](double f, std::string_view) { return f < 0.7; });
  ASSERT_FALSE(cancelled.ok());
  EXPECT_NE(cancelled.error().message.find("cancelled"), std::string::npos);
  auto first = (*gpt2)->flowRoutes(*enc, {0, 0.04});
  ASSERT_TRUE(first.ok()) << first.error().message;
  for (const auto& e : first->edges) EXPECT_EQ(e.to, 0) << "the first token reads only itself";
  EXPECT_FALSE(first->edges.empty());
}

}  // namespace
}  // namespace attn::models
