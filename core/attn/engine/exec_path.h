#pragma once
// Execution paths: names for front ends, and what `auto` picks.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/spec.h"

namespace attn {

std::string_view execPathName(ExecPath p);
std::optional<ExecPath> parseExecPath(std::string_view name);
/// Every path's name (for selectors and --help).
std::vector<std::string_view> allExecPaths();
/// Whether the path approximates softmax attention (and reports its error).
bool isApproximate(ExecPath p);

/// Auto runs the naive path (every intermediate kept, for the step-through
/// view) while Nq * Nk is at most this, and the tiled path above it, where the
/// naive path's four Nq x Nk arrays per head leave the cache (docs/performance.md).
inline constexpr long long kAutoNaiveMaxCells = 512LL * 512LL;

/// Whether the tiled/sparse kernels cover the mechanism (its score must be a
/// dot product of transformed rows: dot, scaled_dot, general, cosine).
bool tiledSupports(Mechanism m);

/// The path a request runs on; never Auto. Tiled/sparse fall back to naive
/// for mechanisms the kernels do not cover.
ExecPath resolveExecPath(const AttentionSpec& spec, int nq, int nk);

/// Column labels of a Linformer map: "slot 0" .. "slot k-1".
std::vector<std::string> linformerSlotLabels(int k);

}  // namespace attn
