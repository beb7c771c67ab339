// End-to-end: `attnscope-cli geometry` (AttentionViz): a file's q and
// k projected as numpy's SVD does (tests/scripts/gen_spatial_fixtures.py), text
// input, the figure, and errors.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "attn/io/npy_reader.h"
#include "attn/io/npz_stream.h"
#include "cli_runner.h"

namespace attn::test {
namespace {

TEST(CliGeometry, FileQueriesAndKeysMatchNumpy) {
  const auto dir = scratchDir("geometry_fixture");
  auto arrays = readNpzFile(std::string(ATTN_FIXTURE_DIR) + "/spatial/qk_geometry.npz");
  ASSERT_TRUE(arrays.ok());
  std::map<std::string, NpyArray> f;
  for (auto& a : *arrays) f[a.name] = a;
  // One head: q [1, 6, 5], k = v [1, 9, 5].
  const auto in = (dir / "qk.npz").string();
  {
    NpzStreamWriter w;
    ASSERT_TRUE(w.open(in).ok());
    Tensor q = f["q"].values, k = f["k"].values;
    q.shape = {1, 6, 5};
    k.shape = {1, 9, 5};
    ASSERT_TRUE(w.addFloat("q", q).ok());
    ASSERT_TRUE(w.addFloat("k", k).ok());
    ASSERT_TRUE(w.addFloat("v", k).ok());
    ASSERT_TRUE(w.commit().ok());
  }
  const auto out = (dir / "pts.csv").string();
  const auto r = runCli({"geometry", "--input", in, "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream csv(readFile(out));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "kind,index,token,x,y");
  const auto& want = f["points"].values.data;
  int row = 0;
  while (std::getline(csv, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    ASSERT_EQ(cells.size(), 5u) << line;
    EXPECT_EQ(cells[0], row < 6 ? "query" : "key");
    EXPECT_NEAR(std::stod(cells[3]), want[static_cast<size_t>(row * 2)], 1e-4) << line;
    EXPECT_NEAR(std::stod(cells[4]), want[static_cast<size_t>(row * 2 + 1)], 1e-4) << line;
    ++row;
  }
  EXPECT_EQ(row, 15);
}

TEST(CliGeometry, TextFigureAndErrors) {
  const auto dir = scratchDir("geometry_text");
  const auto npz = (dir / "g.npz").string();
  const auto r = runCli({"geometry", "--text", "the cat sat on the mat", "--head", "2", "--out", npz});
  ASSERT_EQ(r.status, 0) << r.err;
  auto z = readNpzFile(npz);
  ASSERT_TRUE(z.ok());
  std::map<std::string, NpyArray> m;
  for (auto& a : *z) m[a.name] = a;
  EXPECT_EQ(m["query_points"].shape, (std::vector<int64_t>{6, 2}));
  EXPECT_EQ(m["key_points"].shape, (std::vector<int64_t>{6, 2}));
  EXPECT_EQ(m["tokens"].strings[1], "cat");
  const auto png = (dir / "g.png").string();
  const auto fig = runCli({"geometry", "--text", "the cat sat on the mat", "--query", "1", "--out", png});
  if (fig.err.find("no figure renderer") == std::string::npos) {
    ASSERT_EQ(fig.status, 0) << fig.err;
    EXPECT_EQ(readFile(png).substr(1, 3), "PNG");
  }
  for (auto [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"geometry", "--text", "a b c", "--head", "9", "--out", (dir / "x.csv").string()}, "--head"},
           {{"geometry", "--text", "a b c", "--out", (dir / "x.txt").string()}, "--out"},
           {{"geometry", "--text", "a b c", "--query", "3", "--out", (dir / "x.png").string()}, "--query"}}) {
    const auto e = runCli(args);
    EXPECT_NE(e.status, 0) << says;
    EXPECT_NE(e.err.find(says), std::string::npos) << e.err;
  }
}

}  // namespace
}  // namespace attn::test
