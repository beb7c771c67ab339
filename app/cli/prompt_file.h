#pragma once
// Data sets for the commands that average over many prompts (importance, lens, patch): a text
// file of prompts, one per line, or a JSON-lines file of clean / corrupt / target / foil rows
// (the shape of Wang et al. 2023's IOI data and Meng et al. 2022's counterfactual pairs).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "attn/models/model.h"
#include "attn/status.h"

namespace attn::cli {

struct InputOptions;

/// The prompts of a --prompts file, one per non-empty line (CRLF tolerated), each encoded and
/// fitted to the model's context (--max-tokens cuts, else a line past it is refused naming
/// FILE:LINE).
Result<std::vector<models::Encoding>> encodePrompts(const models::Model& model, const InputOptions& o,
                                                    const std::string& path);

/// Opens --model (with progress on a terminal) and encodes the prompts of `path` as encodePrompts.
Result<std::pair<std::shared_ptr<const models::Model>, std::vector<models::Encoding>>> openModelPrompts(
    const InputOptions& o, const std::string& path);

/// One row of a --pairs file: {"clean": ..., "corrupt": ..., "target": ..., "foil": ...}.
struct PatchPair {
  std::string clean, corrupt, target, foil;
  std::string where;  // FILE:LINE, for messages
};

/// Every non-empty line of `path` as a JSON object with the four string members; a line that
/// is not one is refused as FILE:LINE with what is wrong. At most 10,000 rows.
Result<std::vector<PatchPair>> readPatchPairs(const std::string& path);

/// The mean and the population standard deviation of equal-shaped matrices, entry by entry.
struct MeanSpread {
  Mat mean, spread;
};
MeanSpread meanAndSpread(const std::vector<Mat>& samples);

}  // namespace attn::cli
