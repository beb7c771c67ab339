// attnscope-cli metrics: every measure per head, JSON/CSV/text, precomputed
// files checked against numpy (tests/scripts/gen_metrics_fixtures.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numbers>

#include "attn/io/npy_reader.h"
#include "cli_runner.h"

namespace attn::test {
namespace {

using nlohmann::json;
const char* kCliMetricsText = "The cat sat on the mat, and it purred.";  // 11 tokens
const std::string kFixtures = std::string(ATTN_FIXTURE_DIR) + "/metrics/";

const char* kHeadKeys[] = {"head", "entropy_mean", "entropy_min", "entropy_max", "normalized_entropy_mean",
                           "confidence", "max_min_gap", "max_min_ratio", "mean_distance", "diagonal_share",
                           "previous_share", "next_share", "first_share", "separator_share", "coverage_k",
                           "coverage_fraction", "row_entropy", "row_normalized_entropy", "row_coverage_k",
                           "offset_profile", "collapse", "fully_masked_rows"};

json runJson(const std::vector<std::string>& args) {
  const auto r = runCli(args);
  EXPECT_EQ(r.status, 0) << r.err;
  return json::parse(r.out, nullptr, false);
}

TEST(CliMetrics, JsonHasEveryMeasurePerHeadAndAgreesWithRun) {
  const json doc = runJson({"metrics", "--text", kCliMetricsText, "--heads", "4", "--mask", "causal", "--json"});
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["entropy_unit"], "nats");
  EXPECT_DOUBLE_EQ(doc["collapse_thresholds"]["uniform_normalized_entropy"].get<double>(), 0.95);
  EXPECT_DOUBLE_EQ(doc["collapse_thresholds"]["one_hot_max_weight"].get<double>(), 0.95);
  EXPECT_NEAR(doc["uniform_bound"].get<double>(), std::log(11.0), 1e-9);
  ASSERT_EQ(doc["heads"].size(), 4u);
  for (const auto& h : doc["heads"]) {
    for (const char* k : kHeadKeys) EXPECT_TRUE(h.contains(k)) << k;
    EXPECT_GE(h["entropy_min"].get<double>(), 0.0);
    EXPECT_LE(h["entropy_max"].get<double>(), std::log(11.0) + 1e-6);
    EXPECT_EQ(h["row_entropy"].size(), 11u);
    EXPECT_EQ(h["row_entropy"][0].get<double>(), 0.0);  // causal row 0 sees one key
    EXPECT_EQ(h["next_share"].get<double>(), 0.0);       // causal: nothing ahead
    EXPECT_EQ(h["offset_profile"]["min_offset"], -10);
  }
  auto order = doc["head_order"].get<std::vector<int>>();
  std::sort(order.begin(), order.end());
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4}));
  const auto d = doc["head_divergence"];
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b) EXPECT_DOUBLE_EQ(d[a][b].get<double>(), d[b][a].get<double>());

  // The engine's own entropy (written by `run`) has the same per-head means.
  const auto dir = scratchDir("metrics_run");
  const auto npz = (dir / "r.npz").string();
  ASSERT_EQ(runCli({"run", "--text", kCliMetricsText, "--heads", "4", "--mask", "causal", "--out", npz}).status, 0);
  auto arrays = readNpzFile(npz);
  ASSERT_TRUE(arrays.ok());
  for (const auto& a : *arrays)
    if (a.name == "entropy")
      for (int h = 0; h < 4; ++h) {
        double mean = 0;
        for (int i = 0; i < 11; ++i) mean += a.values.data[static_cast<size_t>(h * 11 + i)] / 11.0;
        EXPECT_NEAR(doc["heads"][h]["entropy_mean"].get<double>(), mean, 1e-5);
      }
}

TEST(CliMetrics, LayeredFileMatchesNumpyReference) {
  const json doc = runJson({"metrics", "--attn", kFixtures + "layers.npz", "--json"});
  ASSERT_FALSE(doc.is_discarded());
  std::ifstream f(kFixtures + "layers_expected.json");
  const json want = json::parse(f);
  ASSERT_EQ(doc["n_layers"], 3);
  ASSERT_EQ(doc["layers"].size(), 3u);
  for (size_t l = 0; l < 3; ++l) {
    const auto& got = doc["layers"][l];
    for (size_t h = 0; h < 2; ++h)
      for (const auto& [key, value] : want["layers"][l]["heads"][h].items())
        EXPECT_NEAR(got["heads"][h][key].get<double>(), value.get<double>(), 2e-6)
            << "layer " << l + 1 << " head " << h + 1 << " " << key;
    EXPECT_NEAR(got["head_divergence"][0][1].get<double>(), want["layers"][l]["head_divergence"][0][1].get<double>(),
                2e-6);
  }
  for (const char* m : {"rollout", "flow"})
    for (size_t i = 0; i < 4; ++i)
      for (size_t j = 0; j < 4; ++j)
        EXPECT_NEAR(doc[m][i][j].get<double>(), want[m][i][j].get<double>(), 2e-6) << m << " " << i << "," << j;
  EXPECT_TRUE(doc["warnings"].empty());
}

TEST(CliMetrics, RowsNotSummingToOneAreWarnedNotFatal) {
  const auto r = runCli({"metrics", "--attn", kFixtures + "bad_rows.npy", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const char* needle = "head 2: 2 row(s) do not sum to 1 (row 1 sums to 0.7, row 2 sums to 1.3";
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc["warnings"].size(), 1u);
  EXPECT_NE(doc["warnings"][0].get<std::string>().find(needle), std::string::npos);
  // Head 1 is uniform over 3 keys: flagged, with the threshold that decided it.
  EXPECT_TRUE(doc["heads"][0]["collapse"]["near_uniform"].get<bool>());
  EXPECT_NEAR(doc["heads"][0]["entropy_mean"].get<double>(), std::log(3.0), 1e-6);
}

TEST(CliMetrics, TextTableAndBits) {
  const auto r = runCli({"metrics", "--text", kCliMetricsText, "--heads", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* s : {"mean entropy (nats)", "confidence", "mean attention distance", "share on first token",
                        "keys covering 90% of mass", "uniform bound log N = 2.3979 nats", "head divergence",
                        "heads ordered by similarity"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  const json nats = runJson({"metrics", "--text", kCliMetricsText, "--heads", "2", "--json"});
  const json bits = runJson({"metrics", "--text", kCliMetricsText, "--heads", "2", "--json", "--bits", "--coverage", "0.5"});
  EXPECT_EQ(bits["entropy_unit"], "bits");
  EXPECT_NEAR(bits["heads"][1]["entropy_mean"].get<double>(),
              nats["heads"][1]["entropy_mean"].get<double>() / std::numbers::ln2, 1e-5);
  EXPECT_LT(bits["heads"][1]["coverage_k"].get<double>(), nats["heads"][1]["coverage_k"].get<double>());
}

TEST(CliMetrics, CsvHasOneLinePerHeadAndRefusesToOverwrite) {
  const auto dir = scratchDir("metrics_csv");
  const auto csv = (dir / "m.csv").string();
  const auto r = runCli({"metrics", "--text", kCliMetricsText, "--heads", "4", "--json", "--csv", csv});
  ASSERT_EQ(r.status, 0) << r.err;
  const json doc = json::parse(r.out);
  const std::string text = readFile(csv);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 5);
  EXPECT_EQ(text.substr(0, 31), "layer,head,entropy_mean,entropy");
  // Line for head 3: "0,3,<entropy_mean>,..."
  const auto line = text.find("\n0,3,");
  ASSERT_NE(line, std::string::npos);
  EXPECT_NEAR(std::stod(text.substr(line + 5)), doc["heads"][2]["entropy_mean"].get<double>(), 1e-6);

  const auto again = runCli({"metrics", "--text", kCliMetricsText, "--csv", csv});
  EXPECT_EQ(again.status, 1);
  EXPECT_NE(again.err.find("file exists"), std::string::npos) << again.err;
  EXPECT_EQ(runCli({"metrics", "--text", kCliMetricsText, "--csv", csv, "--force"}).status, 0);

  const auto layered = (dir / "layers.csv").string();
  ASSERT_EQ(runCli({"metrics", "--attn", kFixtures + "layers.npz", "--csv", layered}).status, 0);
  const std::string lt = readFile(layered);
  EXPECT_EQ(std::count(lt.begin(), lt.end(), '\n'), 7);  // header + 3 layers x 2 heads
  EXPECT_NE(lt.find("\n3,2,"), std::string::npos);
}

TEST(CliMetrics, BadInputIsOneLineNamingTheFault) {
  const auto dir = scratchDir("metrics_bad");
  const auto csv = (dir / "m.csv").string();
  struct Case {
    std::vector<std::string> args;
    const char* needle;
  };
  for (const auto& c : std::vector<Case>{
           {{"--attn", "/nonexistent/a.npz", "--csv", csv}, "/nonexistent/a.npz"},
           {{"--attn", kFixtures + "layers_expected.json"}, "--attn takes an .npy or .npz"},
           {{"--attn", std::string(ATTN_FIXTURE_DIR) + "/io/tokens.npy"}, "no numeric array named 'attn'"},
           {{"--attn", kFixtures + "rank1.npy"}, "has shape [3]; expected [Nq,Nk]"},
           {{"--text", kCliMetricsText, "--coverage", "1.5", "--csv", csv}, "--coverage"},
           {{"--text", kCliMetricsText, "--collapse-share", "-1"}, "--collapse-share"},
           {{"--text", kCliMetricsText, "--attn", kFixtures + "layers.npz"}, "excludes"},
           {{"--heads", "2"}, "--text"}}) {
    std::vector<std::string> args{"metrics"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = runCli(args);
    EXPECT_EQ(r.status, 1) << c.needle;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(csv)) << "no partial CSV for " << c.needle;
  }
}

TEST(CliMetrics, SparseMaskAndApproximationAreMeasuredAgainstExact) {
  const auto dir = scratchDir("metrics_vs_exact");
  const json doc = runJson({"metrics", "--text", kCliMetricsText, "--heads", "2", "--mask", "causal+window:1", "--json"});
  ASSERT_TRUE(doc.contains("vs_exact")) << doc.dump();
  ASSERT_EQ(doc["vs_exact"].size(), 2u);
  EXPECT_EQ(doc["vs_exact"][0]["reference"], "dense attention (mask 'causal')");
  // Independent: the two runs' weights, Frobenius distance computed here.
  const auto sparse = (dir / "sparse.npz").string(), dense = (dir / "dense.npz").string();
  ASSERT_EQ(runCli({"run", "--text", kCliMetricsText, "--heads", "2", "--mask", "causal+window:1", "--out", sparse, "--force"}).status, 0);
  ASSERT_EQ(runCli({"run", "--text", kCliMetricsText, "--heads", "2", "--mask", "causal", "--out", dense, "--force"}).status, 0);
  const auto ws = readNpzFile(sparse).value(), wd = readNpzFile(dense).value();
  const auto weights = [](const std::vector<NpyArray>& a) {
    return *std::find_if(a.begin(), a.end(), [](const NpyArray& x) { return x.name == "weights"; });
  };
  for (int h = 0; h < 2; ++h) {
    const double f = (weights(ws).values.slice2d(h) - weights(wd).values.slice2d(h)).norm();
    EXPECT_GT(f, 0.01);
    EXPECT_NEAR(doc["vs_exact"][h]["weights_frobenius"].get<double>(), f, 1e-5);
    EXPECT_GT(doc["vs_exact"][h]["mean_row_kl"].get<double>(), 0.0);
  }

  const json approx = runJson({"metrics", "--text", kCliMetricsText, "--heads", "2", "--exec", "performer", "--json"});
  ASSERT_EQ(approx["vs_exact"].size(), 2u) << approx.dump();
  EXPECT_EQ(approx["vs_exact"][1]["reference"], "exact softmax");
  EXPECT_GT(approx["vs_exact"][1]["weights_frobenius"].get<double>(), 0.0);
  EXPECT_GT(approx["vs_exact"][1]["output_rel_error"].get<double>(), 0.0);

  const json plain = runJson({"metrics", "--text", kCliMetricsText, "--heads", "2", "--mask", "causal", "--json"});
  EXPECT_FALSE(plain.contains("vs_exact"));  // causal is the model, not an approximation
  const auto text = runCli({"metrics", "--text", kCliMetricsText, "--heads", "2", "--mask", "block:3"});
  EXPECT_NE(text.out.find("head 2: vs dense attention (mask 'none'): weights Frobenius"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace attn::test

namespace attn::test {
namespace {

// the streamed analysis (no N x N array) reports what the
// materialized one does, every measure, to 1e-6; run's streamed .npz reads
// back; f16 weights are the f32 ones within half precision.
TEST(CliMetricsStreamed, SameReportAsMaterializedAndRunFilesAgree) {
  const auto dir = scratchDir("metrics_streamed");
  const std::vector<std::string> common{"--text", kCliMetricsText, "--heads", "4", "--mask", "causal", "--exec", "tiled", "--json"};
  auto withPath = [&](const char* path) {
    auto args = std::vector<std::string>{"metrics"};
    args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), {"--analysis-path", path});
    return runJson(args);
  };
  const json s = withPath("streamed"), m = withPath("materialized");
  ASSERT_FALSE(s.is_discarded());
  ASSERT_FALSE(m.is_discarded());
  EXPECT_EQ(s["analysis_path"], "streamed");
  EXPECT_EQ(m["analysis_path"], "materialized");
  EXPECT_EQ(s["head_divergence_method"]["method"], "exact");
  ASSERT_EQ(s["heads"].size(), m["heads"].size());
  for (size_t h = 0; h < s["heads"].size(); ++h)
    for (auto& [key, value] : m["heads"][h].items()) {
      if (value.is_number()) {
        EXPECT_NEAR(s["heads"][h][key].get<double>(), value.get<double>(), 1e-6 * std::max(1.0, std::abs(value.get<double>())))
            << key;
      }
      if (value.is_array() && !value.empty() && value[0].is_number()) {
        for (size_t i = 0; i < value.size(); ++i)
          EXPECT_NEAR(s["heads"][h][key][i].get<double>(), value[i].get<double>(), 1e-6 * std::max(1.0, std::abs(value[i].get<double>())))
              << key << "[" << i << "]";
      }
    }
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      EXPECT_NEAR(s["head_divergence"][a][b].get<double>(), m["head_divergence"][a][b].get<double>(), 1e-6);

  const auto f32 = (dir / "r32.npz").string(), f16 = (dir / "r16.npz").string();
  ASSERT_EQ(runCli({"run", "--text", kCliMetricsText, "--heads", "4", "--out", f32}).status, 0);
  const auto r16 = runCli({"run", "--text", kCliMetricsText, "--heads", "4", "--out", f16, "--weights-dtype", "f16"});
  ASSERT_EQ(r16.status, 0) << r16.err;
  auto a32 = readNpzFile(f32);
  auto a16 = readNpzFile(f16);
  ASSERT_TRUE(a32.ok() && a16.ok());
  ASSERT_EQ(a32->size(), a16->size());
  for (size_t k = 0; k < a32->size(); ++k) {
    const auto& x = (*a32)[k];
    const auto& y = (*a16)[k];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.shape, y.shape);
    const bool half = x.name == "weights" || x.name == "scores";
    EXPECT_EQ(y.descr, half ? "<f2" : x.descr) << x.name;
    for (size_t i = 0; i < x.values.data.size(); ++i) {
      const float u = x.values.data[i], v = y.values.data[i];
      EXPECT_LE(std::abs(u - v), half ? std::max(std::ldexp(std::abs(u), -11), std::ldexp(1.0f, -25)) : 0.0f) << x.name;
    }
  }
}

}  // namespace
}  // namespace attn::test
