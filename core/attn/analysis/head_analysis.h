#pragma once
// Every per-row and per-head measure for all heads of a result (and every
// layer of precomputed [L][H] weights), with the warnings bad input deserves.
#include <string>
#include <vector>

#include "attn/analysis/entropy.h"
#include "attn/analysis/head_similarity.h"
#include "attn/analysis/layers.h"
#include "attn/analysis/row_measures.h"

namespace attn {

struct AttentionResult;

/// Thresholds of the collapse flags; reported with every flag so a reader
/// knows what "most rows" meant.
struct CollapseThresholds {
  double uniformEntropy = 0.95;  // near-uniform row: normalized entropy above this
  double oneHotMass = 0.95;      // near-one-hot row: one key holds more than this
  double rowShare = 0.5;         // flag the head when more than this share of rows qualify
};

struct AnalysisOptions {
  EntropyUnit unit = EntropyUnit::Nats;
  double coverageLevel = 0.9;      // sparsity: mass the k largest weights must cover
  CollapseThresholds collapse;
  double rowSumTolerance = 1e-3;   // |sum_j a_ij - 1| above this is reported and rescaled
  bool headSimilarity = true;      // O(H^2 N^2): callers with many heads may skip it
  DivergenceOptions divergence;    // exact, or a row sample with a bound (long N)
};

/// Collapse flags. Near-one-hot is the low-entropy "attention entropy
/// collapse" of Zhai et al. 2023 (ICML, "Stabilizing Transformer Training by
/// Preventing Attention Entropy Collapse"); near-uniform is the opposite
/// failure, a head that averages everything. Only rows with at least 2
/// unmasked keys count: a row with a single allowed key has no choice to make.
struct CollapseFlags {
  bool nearUniform = false;
  bool nearOneHot = false;
  double uniformRowShare = 0;  // share of counted rows with normalized entropy > uniformEntropy
  double oneHotRowShare = 0;   // share of counted rows whose max weight > oneHotMass
  int rowsCounted = 0;
};

struct HeadAnalysis {
  int rows = 0, cols = 0;
  /// Per row (size = rows). Rows with no unmasked key hold 0 (ratio: 1).
  struct PerRow {
    Vec entropy, normalizedEntropy, maxWeight, maxMinGap, maxMinRatio, meanDistance, coverageK;
    std::vector<int> keptKeys;  // unmasked keys per row
  } perRow;
  std::vector<int> emptyRows;       // rows with no unmasked key (fully masked)
  // Per head: means over rows that have at least one unmasked key.
  double entropyMean = 0, entropyMin = 0, entropyMax = 0;
  double normalizedEntropyMean = 0;
  double confidence = 0;            // mean_i max_j a_ij (Voita et al. 2019)
  double maxMinGap = 0;             // mean row gap
  double maxMinRatio = 1;           // geometric mean of the row ratios (they span decades)
  double meanDistance = 0;          // mean_i sum_j a_ij |i - j| (Dosovitskiy et al. 2021)
  double coverageK = 0;             // mean smallest k covering coverageLevel of the mass
  double coverageFraction = 0;      // mean k_i / n_i: 1 dense, 1/n one-hot
  OffsetProfile offsets;
  PatternShares shares;
  CollapseFlags collapse;
};

struct Analysis {
  AnalysisOptions options;
  int nq = 0, nk = 0;
  double uniformBound = 0;           // log Nk in the unit: entropy of uniform attention
  std::vector<HeadAnalysis> heads;
  Mat headDivergence;                // H x H mean row Jensen-Shannon divergence (in the unit)
  std::vector<int> headOrder;        // heads ordered so similar ones are adjacent
  DivergenceInfo divergenceInfo;     // exact or sampled, and the sample's bound
  std::vector<std::string> warnings; // empty heads, rows not summing to 1, fully masked rows
};

/// Analyzes heads [Nq, Nk]. `keep` may be empty (or hold empty masks): then
/// non-zero weights are the unmasked keys. Rows whose sum is off 1 by more
/// than the tolerance are rescaled to sum 1 (negative or non-finite entries
/// set to 0) and named in a warning with their sums; nothing here throws or
/// yields NaN. `label` prefixes warnings (e.g. "layer 2 ").
Analysis analyzeHeads(const std::vector<Mat>& heads, const std::vector<std::string>& keyTokens,
                      const std::vector<KeepMask>& keep = {}, const AnalysisOptions& options = {},
                      const std::string& label = "");

/// analyzeHeads over an engine result, with the masks it used (finite logits).
Analysis analyzeResult(const AttentionResult& result, const AnalysisOptions& options = {});

struct LayeredAnalysis {
  std::vector<Analysis> layers;
  std::vector<Mat> rollout;           // R_1 .. R_L (empty when not square)
  Mat flow;                           // empty when skipped; see flowNote
  std::string flowNote;               // why flow is missing, if it is
  std::vector<std::string> warnings;  // all layers' warnings, prefixed with the layer
};

/// analyzeHeads for each layer of precomputed [L][H] weights, then rollout and
/// (when small enough) flow across layers.
LayeredAnalysis analyzeLayers(const LayeredWeights& layers, const std::vector<std::string>& keyTokens,
                              const AnalysisOptions& options = {});

/// Rows whose mass is off 1 by more than `tolerance` (fully zero rows are
/// "masked", not off): one warning naming them and their sums, or "".
std::string rowSumWarning(const Eigen::Ref<const Mat>& weights, double tolerance, const std::string& what);

}  // namespace attn
