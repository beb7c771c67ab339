#pragma once
// attnscope-cli metrics output: the core analysis as JSON, a text table, CSV.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attn/metrics.h"

namespace attn::cli {

/// One head's measures; keeps the keys e2e tests and scripts rely on
/// (head, entropy_mean, entropy_min, entropy_max, row_entropy).
nlohmann::json headJson(const HeadAnalysis& h, int headNumber);
/// Heads, divergence matrix and order of one analysis (one layer).
void addAnalysisJson(nlohmann::json& doc, const Analysis& an);
/// The same without the heads: their place is kept (null) for printAnalysisJson.
void addAnalysisSummaryJson(nlohmann::json& doc, const Analysis& an);
/// Prints `doc` (from addAnalysisSummaryJson) with the heads of `an`, byte for
/// byte as doc.dump(2) and a newline would print the whole document, building
/// one head's JSON at a time: the per-row arrays of every head at once were
/// most of `metrics --json`'s memory at long N.
void printAnalysisJson(std::FILE* out, const nlohmann::json& doc, const Analysis& an);
/// The same for a document with "layers": each element's "heads" (null, or an array of extra
/// keys per head such as head_type, merged into that head) printed from layers[l], one head at a
/// time (16 layers x 32 heads x 32,768 rows took a 4.4 GB document in memory).
void printLayeredAnalysisJson(std::FILE* out, const nlohmann::json& doc, const std::vector<Analysis>& layers);
/// Which divergence ran: {"method": "exact"|"sampled", "rows_used", "rows_total", "bound", "confidence"}.
nlohmann::json divergenceJson(const DivergenceInfo& d);
std::string divergenceText(const DivergenceInfo& d, EntropyUnit unit);
/// metrics --profile: one line per stage with CPU seconds and share.
std::string profileText(const AnalysisProfile& p);

/// Unit, thresholds and coverage level: what the numbers mean.
nlohmann::json optionsJson(const AnalysisOptions& o);

/// Human-readable report: measures as rows, heads as columns.
std::string analysisText(const Analysis& an, const std::string& title);

/// A measure's value as the table's 10-wide column, never touching its neighbour.
std::string tableCell(double v);
std::string matrixText(const Mat& m, const std::string& title);
/// A matrix as JSON rows of numbers.
nlohmann::json matrixJson(const Mat& m);

/// Matrices up to this many rows are printed in the text report; larger ones go to --json only.
inline constexpr Eigen::Index kPrintedTokens = 16;
/// The rollout after the last layer (R_L, layers.h) as `rollout` in the JSON (only when `json`: at
/// 1,024 tokens it is a million JSON values a text report would build and throw away), and as
/// text when small.
void addRollout(nlohmann::json& doc, std::string& text, const Mat& rollout, bool json);
/// The attention flow as `flow` (text when small; the JSON only when `json`); an empty `flow`
/// gives `flow_note` = note instead.
void addFlow(nlohmann::json& doc, std::string& text, const Mat& flow, const std::string& note, bool json);

/// CSV, one line per (layer, head) and one column per measure plus the
/// collapse flags. `layer` 0 means "no layers".
std::string csvHeader();
std::string csvRows(const Analysis& an, int layer);

}  // namespace attn::cli
