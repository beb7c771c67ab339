#pragma once
// The CPU backend's tiled, sparse and approximate execution paths, run for all
// heads of a request (OpenMP across heads only: one level of parallelism).
#include <functional>
#include <vector>

#include "attn/cpu/tiled_attention.h"
#include "attn/engine.h"

namespace attn {

using HeadFn = std::function<Status(const AttentionSpec&, HeadResult&)>;

/// Head h's scores as the tiled kernels see them: scale * q' . k' + bias under
/// spec.mask, where q', k' are q W (general) or unit rows (cosine), held in
/// qBuf/kBuf; q, k otherwise. The view points into h, spec and the buffers.
HeadView tiledHeadView(const AttentionSpec& spec, const HeadResult& h, Mat& qBuf, Mat& kBuf);

/// `path` is resolved (never Auto or Naive). `naive` computes one head on the
/// materialized path: used as the exact reference of the approximate paths
/// for mechanisms the tiled kernels do not cover.
Status computeHeadsEfficient(const AttentionSpec& spec, ExecPath path,
                             std::vector<HeadResult>& heads, const HeadFn& naive);

}  // namespace attn
