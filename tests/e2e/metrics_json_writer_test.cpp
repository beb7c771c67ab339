// `metrics --json` prints each head's long vectors itself (printAnalysisJson,
// app/cli/metrics_report.cpp) instead of dumping a JSON value per number: the
// text must stay the whole document's dump(2), byte for byte.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "attn/analysis/head_analysis.h"
#include "attn/engine/random.h"
#include "metrics_report.h"

namespace attn::test {
namespace {

using namespace attn::cli;

template <typename Print>
std::string printedBy(Print print) {
  std::FILE* f = std::tmpfile();
  print(f);
  std::string text(static_cast<size_t>(std::ftell(f)), '\0');
  std::rewind(f);
  const size_t got = std::fread(text.data(), 1, text.size(), f);
  std::fclose(f);
  text.resize(got);
  return text;
}

std::string printed(const nlohmann::json& summary, const Analysis& an) {
  return printedBy([&](std::FILE* f) { printAnalysisJson(f, summary, an); });
}

Analysis sampleAnalysis(int heads, int rows, int cols, uint64_t seed) {
  SeededRng rng(seed);
  std::vector<Mat> weights;
  for (int h = 0; h < heads; ++h) {
    Mat w(rows, cols);
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) w(i, j) = static_cast<float>(std::exp(2.0 * rng.normal()));
      w.row(i) /= w.row(i).sum();
    }
    if (h == 1 && rows > 2) {  // a one-hot row and a uniform row: exact 0s, 1s and a repeated value
      w.row(0).setZero();
      w(0, cols / 2) = 1.0f;
      w.row(1).setConstant(1.0f / static_cast<float>(cols));
    }
    weights.push_back(std::move(w));
  }
  std::vector<std::string> tokens;
  for (int j = 0; j < cols; ++j) tokens.push_back("t" + std::to_string(j));
  return analyzeHeads(weights, tokens);
}

TEST(MetricsJsonWriter, PrintsTheWholeDocumentsDumpByteForByte) {
  for (const auto& [heads, rows, cols] : {std::tuple{3, 37, 37}, std::tuple{1, 5, 9}, std::tuple{2, 1, 1}}) {
    const Analysis an = sampleAnalysis(heads, rows, cols, 7u + static_cast<uint64_t>(rows));
    nlohmann::json full = optionsJson(AnalysisOptions{});
    addAnalysisJson(full, an);
    nlohmann::json summary = optionsJson(AnalysisOptions{});
    addAnalysisSummaryJson(summary, an);
    const std::string text = printed(summary, an);
    EXPECT_EQ(text, full.dump(2) + "\n") << heads << " heads, " << rows << " x " << cols;
    // The vectors are there in full, and parse back to the analysis' floats.
    const auto back = nlohmann::json::parse(text);
    ASSERT_EQ(back["heads"].size(), static_cast<size_t>(heads));
    const auto& entropy = back["heads"][0]["row_entropy"];
    ASSERT_EQ(entropy.size(), static_cast<size_t>(rows));
    for (int i = 0; i < rows; ++i) EXPECT_EQ(entropy[static_cast<size_t>(i)].get<float>(), an.heads[0].perRow.entropy[i]);
    EXPECT_EQ(back["heads"][0]["offset_profile"]["mass"].size(), static_cast<size_t>(an.heads[0].offsets.mass.size()));
  }
}

TEST(MetricsJsonWriter, PrintsALayeredDocumentWithHeadTypesByteForByte) {
  // metrics --model: "layers", each with its heads; a model's head types are merged into
  // its heads (head_type and its scores), given as one object of extra keys per head.
  const std::vector<Analysis> layers{sampleAnalysis(3, 21, 21, 3), sampleAnalysis(3, 21, 21, 4),
                                     sampleAnalysis(1, 2, 2, 5)};
  nlohmann::json full = optionsJson(AnalysisOptions{}), summary = full;
  full["n_layers"] = summary["n_layers"] = layers.size();
  for (size_t l = 0; l < layers.size(); ++l) {
    nlohmann::json a{{"layer", l + 1}}, b = a;
    addAnalysisJson(a, layers[l]);
    addAnalysisSummaryJson(b, layers[l]);
    if (l == 0) {  // head types on the first layer only
      b["heads"] = nlohmann::json::array();
      for (size_t h = 0; h < layers[l].heads.size(); ++h) {
        const nlohmann::json extra{{"head_type", h == 1 ? "induction" : "broad"},
                                   {"head_type_scores", {{"induction", 0.1 * static_cast<double>(h)}}}};
        b["heads"].push_back(extra);
        for (const auto& [k, v] : extra.items()) a["heads"][h][k] = v;
      }
    }
    full["layers"].push_back(a);
    summary["layers"].push_back(b);
  }
  const std::string text = printedBy([&](std::FILE* f) { printLayeredAnalysisJson(f, summary, layers); });
  EXPECT_EQ(text, full.dump(2) + "\n");
  const auto back = nlohmann::json::parse(text);
  EXPECT_EQ(back["layers"][0]["heads"][1]["head_type"], "induction");
  EXPECT_EQ(back["layers"][1]["heads"][2]["row_entropy"].size(), 21u);
  // No layers at all: the array stays as dump prints it.
  nlohmann::json none = optionsJson(AnalysisOptions{});
  none["layers"] = nlohmann::json::array();
  EXPECT_EQ(printedBy([&](std::FILE* f) { printLayeredAnalysisJson(f, none, {}); }), none.dump(2) + "\n");
}

TEST(MetricsTable, EveryCellIsTenWideWithASpaceBeforeIt) {
  EXPECT_EQ(tableCell(3.4435), "    3.4435");
  EXPECT_EQ(tableCell(0.0), "    0.0000");
  EXPECT_EQ(tableCell(1234.5), " 1234.5000");
  EXPECT_EQ(tableCell(3284118.5279), " 3.284e+06");  // a max / min weight ratio
  EXPECT_EQ(tableCell(-3284118.5279), " -3.28e+06");
  EXPECT_EQ(tableCell(12345.678), " 1.235e+04");
  for (const double v : {1e300, -1e-300, 99999.99999, -99999.9, std::nan(""), HUGE_VAL}) {
    const std::string c = tableCell(v);
    EXPECT_EQ(c.size(), 10u) << c;
    EXPECT_EQ(c[0], ' ') << c;
  }
}

}  // namespace
}  // namespace attn::test
