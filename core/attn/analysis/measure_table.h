#pragma once
// The per-head scalar measures by name, so that the CLI's JSON/CSV columns and
// the GUI's measure selector list the same things in the same words.
#include <string_view>
#include <vector>

#include "attn/analysis/head_analysis.h"

namespace attn {

struct HeadMeasure {
  std::string_view key;    // JSON / CSV column, e.g. "entropy_mean"
  std::string_view label;  // short human name, e.g. "mean entropy"
  std::string_view unit;   // "nats" is replaced by the analysis unit; "" for none
  double (*value)(const HeadAnalysis&);
  bool entropyBound;       // bounded by log N: charts draw the uniform bound
};

/// Every per-head scalar measure, in display order.
const std::vector<HeadMeasure>& headMeasures();
/// The measure with this key, or nullptr.
const HeadMeasure* findHeadMeasure(std::string_view key);
/// "nats" or "bits".
std::string_view unitName(EntropyUnit unit);

}  // namespace attn
