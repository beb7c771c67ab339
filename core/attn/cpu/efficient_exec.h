#pragma once
// The CPU backend's tiled, sparse and approximate execution paths, run for all
// heads of a request (OpenMP across heads only: one level of parallelism).
#include <functional>
#include <vector>

#include "attn/engine.h"

namespace attn {

using HeadFn = std::function<Status(const AttentionSpec&, HeadResult&)>;

/// `path` is resolved (never Auto or Naive). `naive` computes one head on the
/// materialized path: used as the exact reference of the approximate paths
/// for mechanisms the tiled kernels do not cover.
Status computeHeadsEfficient(const AttentionSpec& spec, ExecPath path,
                             std::vector<HeadResult>& heads, const HeadFn& naive);

}  // namespace attn
