#include "attn/analysis/measure_table.h"

namespace attn {

const std::vector<HeadMeasure>& headMeasures() {
  static const std::vector<HeadMeasure> kMeasures = {
      {"entropy_mean", "mean entropy", "nats", [](const HeadAnalysis& a) { return a.entropyMean; }, true},
      {"entropy_min", "min row entropy", "nats", [](const HeadAnalysis& a) { return a.entropyMin; }, true},
      {"entropy_max", "max row entropy", "nats", [](const HeadAnalysis& a) { return a.entropyMax; }, true},
      {"normalized_entropy_mean", "normalized entropy", "",
       [](const HeadAnalysis& a) { return a.normalizedEntropyMean; }, false},
      {"confidence", "confidence (mean max weight)", "", [](const HeadAnalysis& a) { return a.confidence; },
       false},
      {"max_min_gap", "max - min weight", "", [](const HeadAnalysis& a) { return a.maxMinGap; }, false},
      {"max_min_ratio", "max / min weight", "", [](const HeadAnalysis& a) { return a.maxMinRatio; }, false},
      {"mean_distance", "mean attention distance", "tokens",
       [](const HeadAnalysis& a) { return a.meanDistance; }, false},
      {"diagonal_share", "share on self", "", [](const HeadAnalysis& a) { return a.shares.diagonal; }, false},
      {"previous_share", "share on previous token", "", [](const HeadAnalysis& a) { return a.shares.previous; },
       false},
      {"next_share", "share on next token", "", [](const HeadAnalysis& a) { return a.shares.next; }, false},
      {"first_share", "share on first token (sink)", "", [](const HeadAnalysis& a) { return a.shares.first; },
       false},
      {"separator_share", "share on separators/punctuation", "",
       [](const HeadAnalysis& a) { return a.shares.separator; }, false},
      {"coverage_k", "keys covering the mass (k)", "keys", [](const HeadAnalysis& a) { return a.coverageK; },
       false},
      {"coverage_fraction", "k / unmasked keys", "", [](const HeadAnalysis& a) { return a.coverageFraction; },
       false},
      {"uniform_row_share", "near-uniform rows", "", [](const HeadAnalysis& a) { return a.collapse.uniformRowShare; },
       false},
      {"one_hot_row_share", "near-one-hot rows", "", [](const HeadAnalysis& a) { return a.collapse.oneHotRowShare; },
       false},
  };
  return kMeasures;
}

const HeadMeasure* findHeadMeasure(std::string_view key) {
  for (const auto& m : headMeasures())
    if (m.key == key) return &m;
  return nullptr;
}

std::string_view unitName(EntropyUnit unit) { return unit == EntropyUnit::Bits ? "bits" : "nats"; }

}  // namespace attn
