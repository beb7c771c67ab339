#pragma once
// Memory guard for the materialized (naive) execution path: before anything
// N x N per head is allocated, the engine estimates its size and refuses a
// request over the budget with a message that says the size and offers the
// tiled, metrics-only path (which never materializes N x N).
#include <cstdint>
#include <string>

#include "attn/spec.h"
#include "attn/status.h"

namespace attn {

/// Bytes of memory this process may use: physical memory (sysconf), lowered
/// to the cgroup limit when one is set (containers). 0 when unknown.
int64_t availableMemoryBytes();

/// The default budget: half of availableMemoryBytes(), or 4 GiB when unknown.
/// The environment variable ATTNSCOPE_MEMORY_BUDGET (e.g. "2G") overrides it.
int64_t defaultMemoryBudget();

/// Parses a byte size: "1500000", "512M", "2G", "1.5GiB" (K/M/G/T, powers of 1024).
Result<int64_t> parseByteSize(const std::string& text);
/// "1.5 GiB", "12.0 MiB", "800 B".
std::string formatBytes(int64_t bytes);

/// How many Nq x Nk float matrices a request keeps, by the path it resolves to:
/// naive keeps raw, scaled and masked logits and the weights of every head; the
/// tiled and sparse kernels only the weights and scaled logits of the heads asked for
/// (spec.weightsHead: -1 all, h one, -2 none); the softmax approximations run
/// the naive reference and keep their own weights too. A positional logit bias
/// adds one matrix per head on every path.
int64_t materializedMatrices(ExecPath path, int64_t heads, int weightsHead, bool logitBias);

/// Bytes of `matrices` Nq x Nk float matrices (saturates instead of overflowing).
int64_t matrixBytes(int64_t matrices, int64_t nq, int64_t nk);

/// Refuses a request whose N x N matrices exceed `budget` (<= 0:
/// defaultMemoryBudget()), saying the size and offering the tiled metrics-only path.
Status checkAttentionMemory(const AttentionSpec& spec, ExecPath path, int64_t heads, int64_t nq, int64_t nk);

}  // namespace attn
