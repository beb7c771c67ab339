// End-to-end: `attnscope-cli graph` (GAT) from an edge list with the
// PyTorch fixture's features and parameters (tests/scripts/gen_spatial_fixtures.py),
// the bundled example, the figure, and one-line errors that write nothing.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "attn/io/npy_reader.h"
#include "cli_runner.h"

namespace attn::test {
namespace {

std::map<std::string, NpyArray> load(const std::string& path) {
  std::map<std::string, NpyArray> m;
  auto z = readNpzFile(path);
  EXPECT_TRUE(z.ok()) << (z.ok() ? "" : z.error().message);
  if (z.ok())
    for (auto& a : *z) m[a.name] = a;
  return m;
}

TEST(CliGraph, EdgeListWithLoadedParametersMatchesPyTorch) {
  const auto dir = scratchDir("graph_fixture");
  const std::string fixture = std::string(ATTN_FIXTURE_DIR) + "/spatial/gat.npz";
  auto f = load(fixture);
  ASSERT_TRUE(f.count("edges"));
  std::string csv = "source,target\n";
  for (int e = 0; e < 8; ++e)
    csv += std::to_string(static_cast<int>(f["edges"].values.data[e * 2])) + "," +
           std::to_string(static_cast<int>(f["edges"].values.data[e * 2 + 1])) + "\n";
  std::ofstream(dir / "edges.csv") << csv;
  const auto out = (dir / "gat.npz").string();
  const auto r = runCli({"graph", "--edges", (dir / "edges.csv").string(), "--features", fixture, "--params", fixture,
                         "--heads", "3", "--out-features", "4", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  auto got = load(out);
  ASSERT_EQ(got["weights"].shape, (std::vector<int64_t>{3, 7, 7}));
  const auto& want = f["weights"].values.data;
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_NEAR(got["weights"].values.data[k], want[k], 1e-5) << k;
    if (want[k] == 0.0f) {
      EXPECT_EQ(got["weights"].values.data[k], 0.0f) << k;
    }
  }
  ASSERT_EQ(got["output"].shape, (std::vector<int64_t>{7, 12}));
  for (size_t k = 0; k < f["out_concat"].values.data.size(); ++k)
    EXPECT_NEAR(got["output"].values.data[k], f["out_concat"].values.data[k], 1e-5);
  EXPECT_EQ(got["layout"].shape, (std::vector<int64_t>{7, 2}));
  EXPECT_EQ(got["labels"].strings.size(), 7u);
}

TEST(CliGraph, ExampleIsDeterministicAndMasksNonNeighbours) {
  const auto dir = scratchDir("graph_example");
  const auto a = (dir / "a.npz").string(), b = (dir / "b.npz").string();
  ASSERT_EQ(runCli({"graph", "--example", "--combine", "mean", "--out", a}).status, 0);
  ASSERT_EQ(runCli({"graph", "--example", "--combine", "mean", "--out", b}).status, 0);
  auto x = load(a), y = load(b);
  EXPECT_EQ(x["layout"].values.data, y["layout"].values.data);
  EXPECT_EQ(x["weights"].values.data, y["weights"].values.data);
  const int n = static_cast<int>(x["weights"].shape[1]);
  ASSERT_EQ(n, 18);
  // Neighbours from the written edge list, read here, plus self-loops.
  std::vector<int> adj(static_cast<size_t>(n * n), 0);
  for (int i = 0; i < n; ++i) adj[static_cast<size_t>(i * n + i)] = 1;
  const auto& e = x["edges"].values.data;
  for (size_t k = 0; k + 1 < e.size(); k += 2) {
    const int s = static_cast<int>(e[k]), t = static_cast<int>(e[k + 1]);
    adj[static_cast<size_t>(s * n + t)] = adj[static_cast<size_t>(t * n + s)] = 1;
  }
  const auto& w = x["weights"].values.data;
  for (int h = 0; h < 4; ++h)
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      for (int j = 0; j < n; ++j) {
        const float v = w[static_cast<size_t>((h * n + i) * n + j)];
        sum += v;
        if (!adj[static_cast<size_t>(i * n + j)]) {
          EXPECT_EQ(v, 0.0f) << h << " " << i << " " << j;
        } else {
          EXPECT_GT(v, 0.0f);
        }
      }
      EXPECT_NEAR(sum, 1.0, 1e-5);
    }
  EXPECT_EQ(x["output"].shape, (std::vector<int64_t>{18, 8}));
}

TEST(CliGraph, FigureAndErrors) {
  const auto dir = scratchDir("graph_errors");
  const auto png = (dir / "g.png").string();
  const auto fig = runCli({"graph", "--example", "--node", "3", "--head", "2", "--out", png});
  if (fig.err.find("no figure renderer") == std::string::npos) {
    ASSERT_EQ(fig.status, 0) << fig.err;
    EXPECT_EQ(readFile(png).substr(1, 3), "PNG");
  }
  std::ofstream(dir / "bad.csv") << "0,1\n1,-2\n";
  const auto out = (dir / "x.npz").string();
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  for (const Case& c : std::vector<Case>{
           {{"graph", "--out", out}, "exactly one"},
           {{"graph", "--example", "--edges", (dir / "bad.csv").string(), "--out", out}, "exactly one"},
           {{"graph", "--edges", (dir / "bad.csv").string(), "--out", out}, "bad.csv"},
           {{"graph", "--edges", (dir / "none.csv").string(), "--out", out}, "none.csv"},
           {{"graph", "--example", "--combine", "sum", "--out", out}, "--combine"},
           {{"graph", "--example", "--heads", "0", "--out", out}, "heads"},
           {{"graph", "--example", "--out", (dir / "x.txt").string()}, "--out"},
           {{"graph", "--example", "--node", "18", "--out", (dir / "n.png").string()}, "--node"},
       }) {
    const auto r = runCli(c.args);
    EXPECT_NE(r.status, 0) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

}  // namespace
}  // namespace attn::test
