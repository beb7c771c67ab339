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

std::string printed(const nlohmann::json& summary, const Analysis& an) {
  std::FILE* f = std::tmpfile();
  printAnalysisJson(f, summary, an);
  std::string text(static_cast<size_t>(std::ftell(f)), '\0');
  std::rewind(f);
  const size_t got = std::fread(text.data(), 1, text.size(), f);
  std::fclose(f);
  text.resize(got);
  return text;
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

}  // namespace
}  // namespace attn::test
