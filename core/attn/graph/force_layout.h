#pragma once
// A force-directed layout of a graph (Fruchterman & Reingold 1991): edges pull
// like springs (d^2 / k), all nodes push apart (k^2 / d) within 2k (the paper's
// grid variant, so 2,000 nodes lay out in a fraction of a second), moves capped
// by a temperature that cools linearly. Deterministic: the same graph and seed
// give the same positions (seeded start, fixed visiting order, one thread).
#include <cstdint>

#include "attn/graph/graph_data.h"
#include "attn/tensor.h"

namespace attn::graph {

struct LayoutOptions {
  uint64_t seed = 42;
  int iterations = 0;  // 0: 300 up to 300 nodes, fewer beyond (at least 100)
};

/// Node positions [N, 2], scaled into [0, 1] x [0, 1].
Mat forceLayout(const GraphData& graph, const LayoutOptions& options = {});

}  // namespace attn::graph
