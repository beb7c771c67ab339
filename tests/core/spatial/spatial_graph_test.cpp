// Graph attention: GAT against hand-computed cases and against the
// paper's equations written in PyTorch (tests/scripts/gen_spatial_fixtures.py),
// the neighbourhood mask, the readers' errors, and the force-directed layout.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "attn/graph/force_layout.h"
#include "attn/graph/gat.h"
#include "attn/io/npy_reader.h"
#include "matrix_matchers.h"

namespace attn::graph {
namespace {

GraphData twoNodes(bool directed) {
  GraphData g;
  g.numNodes = 2;
  g.edges = {{0, 1}};
  g.directed = directed;
  g.features = Mat(2, 1);
  g.features << 1, -1;
  return g;
}

GatParams oneByOne() {
  GatParams p;
  p.w = {Mat::Constant(1, 1, 1.0f)};
  Vec a(2);
  a << 1, 2;
  p.a = {a};
  return p;
}

TEST(Gat, TwoNodesByHand) {
  GatSpec spec;
  spec.heads = 1;
  spec.outFeatures = 1;
  auto r = runGat(twoNodes(false), spec, oneByOne());
  ASSERT_TRUE(r.ok()) << r.error().message;
  // z = (1, -1); e_ij = LeakyReLU(1 * z_i + 2 * z_j):
  // e00 = 3, e01 = LeakyReLU(-1) = -0.2, e10 = 1, e11 = LeakyReLU(-3) = -0.6.
  EXPECT_FLOAT_EQ(r->logits[0](0, 0), 3.0f);
  EXPECT_FLOAT_EQ(r->logits[0](0, 1), -0.2f);
  EXPECT_FLOAT_EQ(r->logits[0](1, 0), 1.0f);
  EXPECT_FLOAT_EQ(r->logits[0](1, 1), -0.6f);
  const double a00 = 1 / (1 + std::exp(-3.2)), a10 = 1 / (1 + std::exp(-1.6));
  EXPECT_NEAR(r->weights[0](0, 0), a00, 1e-6);
  EXPECT_NEAR(r->weights[0](0, 1), 1 - a00, 1e-6);
  EXPECT_NEAR(r->weights[0](1, 0), a10, 1e-6);
  // Concat applies ELU: node 1's aggregate a10 * 1 + (1 - a10) * (-1).
  const double agg1 = a10 - (1 - a10);
  EXPECT_NEAR(r->output(1, 0), agg1 > 0 ? agg1 : std::expm1(agg1), 1e-6);
}

TEST(Gat, DirectedEdgeAndNonNeighboursAreExactlyZero) {
  GatSpec spec;
  spec.heads = 1;
  spec.outFeatures = 1;
  auto r = runGat(twoNodes(true), spec, oneByOne());
  ASSERT_TRUE(r.ok());
  // Edge 0 -> 1: node 1 gathers from 0 and itself; node 0 only from itself.
  EXPECT_EQ(r->weights[0](0, 0), 1.0f);
  EXPECT_EQ(r->weights[0](0, 1), 0.0f);
  EXPECT_TRUE(std::isinf(r->logits[0](0, 1)));
  EXPECT_GT(r->weights[0](1, 0), 0.0f);
  // A path 0 - 1 - 2 with seeded parameters: 0 and 2 never see each other.
  GraphData path;
  path.numNodes = 3;
  path.edges = {{0, 1}, {1, 2}};
  path.features = identityFeatures(3);
  spec.heads = 3;
  spec.outFeatures = 4;
  auto p = runGat(path, spec);
  ASSERT_TRUE(p.ok()) << p.error().message;
  for (const Mat& w : p->weights) {
    EXPECT_EQ(w(0, 2), 0.0f);
    EXPECT_EQ(w(2, 0), 0.0f);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(w.row(i).sum(), 1.0, 1e-6);
  }
  EXPECT_EQ(p->output.cols(), 12);
  // Seeded parameters are reproducible and differ by seed.
  auto again = runGat(path, spec);
  EXPECT_MATRIX_NEAR(again->weights[1], p->weights[1], 0.0);
  spec.seed = 7;
  auto other = runGat(path, spec);
  EXPECT_GT((other->weights[1] - p->weights[1]).cwiseAbs().maxCoeff(), 1e-4f);
}

TEST(Gat, MatchesThePaperInPyTorch) {
  auto arrays = readNpzFile(std::string(ATTN_FIXTURE_DIR) + "/spatial/gat.npz");
  ASSERT_TRUE(arrays.ok()) << arrays.error().message;
  std::map<std::string, Tensor> f;
  for (auto& a : *arrays) f[a.name] = a.values;
  GraphData g;
  g.numNodes = 7;
  g.features = Mat(f["x"].slice2d(0));
  for (int e = 0; e < 8; ++e)
    g.edges.emplace_back(static_cast<int>(f["edges"].data[e * 2]), static_cast<int>(f["edges"].data[e * 2 + 1]));
  GatParams params;
  for (int h = 0; h < 3; ++h) {
    params.w.push_back(Mat(f["gat_w"].slice2d(h)));
    params.a.push_back(Eigen::Map<const Vec>(f["gat_a"].data.data() + h * 8, 8));
  }
  GatSpec spec;
  spec.heads = 3;
  spec.outFeatures = 4;
  auto r = runGat(g, spec, params);
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (int h = 0; h < 3; ++h) EXPECT_MATRIX_NEAR(r->weights[h], Mat(f["weights"].slice2d(h)), 1e-5);
  EXPECT_MATRIX_NEAR(r->output, Mat(f["out_concat"].slice2d(0)), 1e-5);
  spec.combine = HeadCombine::Mean;
  auto m = runGat(g, spec, params);
  ASSERT_TRUE(m.ok());
  EXPECT_MATRIX_NEAR(m->output, Mat(f["out_mean"].slice2d(0)), 1e-5);
}

TEST(Gat, RefusesBadParameters) {
  GatSpec spec;
  spec.heads = 2;
  spec.outFeatures = 1;
  auto r = runGat(twoNodes(false), spec, oneByOne());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("gat_w"), std::string::npos);
  spec.heads = 1;
  GatParams p = oneByOne();
  p.a[0] = Vec::Ones(3);
  r = runGat(twoNodes(false), spec, p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("gat_a"), std::string::npos);
  GraphData g = twoNodes(false);
  g.edges.push_back({0, 5});
  r = runGat(g, spec, oneByOne());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("edge 1"), std::string::npos) << r.error().message;
}

TEST(GraphFiles, EdgeListCsvAndItsErrors) {
  const auto dir = std::filesystem::temp_directory_path() / "attn_graph_test";
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  auto g = readEdgeListCsv(write("e.csv", "source,target\n0,1\n1,2\n2,0\n1,0\n3,3\n"));
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->numNodes, 4);
  EXPECT_EQ(g->edges.size(), 3u);  // 1,0 repeats 0,1 (undirected); 3,3 is a self-loop GAT adds anyway
  const auto keep = g->neighbourhood();
  EXPECT_EQ(keep[0 * 4 + 1], 1);
  EXPECT_EQ(keep[1 * 4 + 0], 1);
  EXPECT_EQ(keep[3 * 4 + 3], 1);
  EXPECT_EQ(keep[3 * 4 + 0], 0);
  for (auto [text, says] : {std::pair{"0,-1\n", "not an index"}, {"0,1.5\n", "not an index"}, {"0\n1\n", "two columns"}}) {
    auto bad = readEdgeListCsv(write("bad.csv", text));
    ASSERT_FALSE(bad.ok()) << text;
    EXPECT_NE(bad.error().message.find("bad.csv"), std::string::npos);
    EXPECT_NE(bad.error().message.find(says), std::string::npos) << bad.error().message;
  }
  auto tooFew = readEdgeListCsv(write("e2.csv", "0,5\n"), 3);
  ASSERT_FALSE(tooFew.ok());
  std::filesystem::remove_all(dir);
}

TEST(ForceLayout, DeterministicForASeedAndNeighboursSitClose) {
  const GraphData g = exampleGraph();
  ASSERT_TRUE(validateGraph(g, "example").ok());
  const Mat a = forceLayout(g, {7, 0}), b = forceLayout(g, {7, 0}), c = forceLayout(g, {8, 0});
  EXPECT_MATRIX_NEAR(a, b, 0.0);
  EXPECT_GT((a - c).cwiseAbs().maxCoeff(), 1e-3f);
  EXPECT_GE(a.minCoeff(), 0.0f);
  EXPECT_LE(a.maxCoeff(), 1.0f + 1e-6f);
  // Mean edge length is well below the mean distance of all pairs.
  double edge = 0, all = 0;
  for (auto [s, t] : g.edges) edge += (a.row(s) - a.row(t)).norm();
  edge /= static_cast<double>(g.edges.size());
  int pairs = 0;
  for (int i = 0; i < g.numNodes; ++i)
    for (int j = i + 1; j < g.numNodes; ++j, ++pairs) all += (a.row(i) - a.row(j)).norm();
  all /= pairs;
  EXPECT_LT(edge, 0.6 * all) << edge << " vs " << all;
  // Same-community pairs sit closer than cross-community ones.
  double same = 0, cross = 0;
  int ns = 0, nc = 0;
  for (int i = 0; i < g.numNodes; ++i)
    for (int j = i + 1; j < g.numNodes; ++j) {
      const double d = (a.row(i) - a.row(j)).norm();
      if (g.groups[i] == g.groups[j]) same += d, ++ns;
      else cross += d, ++nc;
    }
  EXPECT_LT(same / ns, 0.7 * (cross / nc));
}

TEST(ForceLayout, TwoThousandNodesStayFinite) {
  GraphData g;
  g.numNodes = kMaxNodes;
  for (int i = 0; i + 1 < g.numNodes; ++i) g.edges.emplace_back(i, (i * 7 + 3) % g.numNodes);
  const Mat p = forceLayout(g, {1, 5});  // few iterations: this checks scale, not beauty
  EXPECT_TRUE(p.allFinite());
  EXPECT_EQ(p.rows(), kMaxNodes);
}

}  // namespace
}  // namespace attn::graph
