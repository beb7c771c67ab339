#pragma once
// A graph for graph attention: nodes with feature vectors and an adjacency,
// read from an edge-list CSV, an .npz ('adj' [N, N] and/or 'x' [N, F]), or the
// bundled example. Every file is untrusted: errors name the file and the fault.
#include <string>
#include <utility>
#include <vector>

#include "attn/status.h"
#include "attn/tensor.h"

namespace attn::graph {

/// Largest graph accepted: the N x N views and weights stay interactive up to here.
constexpr int kMaxNodes = 2000;

struct GraphData {
  int numNodes = 0;
  std::vector<std::pair<int, int>> edges;  // (source, target), as given; no self-loops, no duplicates
  bool directed = false;                   // false: each edge joins both ways
  Mat features;                            // [N, F]
  std::vector<std::string> labels;         // one per node
  std::vector<int> groups;                 // optional community per node (example graph); empty otherwise

  /// Row-major [N, N] keep bitmap: keep(i, j) = 1 when j is a neighbour of i
  /// (an edge j -> i, or either direction when undirected) or j == i: the
  /// self-loop GAT adds (Velickovic et al. 2018, sec. 2.1, "including i").
  std::vector<uint8_t> neighbourhood() const;
};

/// Edges from a CSV of integer node indices, 0-based: one edge per row in the
/// first two columns (a header row such as "source,target" is skipped; further
/// columns are ignored). numNodes = max index + 1 unless `numNodes` > 0 is given.
Result<GraphData> readEdgeListCsv(const std::string& path, int numNodes = 0);

/// An .npz with 'adj' [N, N] (adj[i, j] != 0: an edge i -> j; the diagonal is
/// ignored, self-loops are always added) and/or 'x' (or 'features') [N, F],
/// optional 'labels' [N] strings.
struct GraphArrays {
  bool hasAdjacency = false;
  GraphData graph;  // features empty when the file has none
};
Result<GraphArrays> readGraphArrays(const std::string& path);

/// Features from .npy [N, F] or an .npz's 'x'/'features' into `g`; the row count must match.
Status attachFeatures(GraphData& g, const Mat& features, const std::string& source);

/// Identity features (one-hot node index) for a graph without any.
Mat identityFeatures(int numNodes);

/// The bundled example: three communities of 6 nodes (dense inside, a few
/// bridges), features = the community one-hot plus seeded noise.
GraphData exampleGraph(uint64_t seed = 42);

/// Checks sizes and indices; errors start with `source`.
Status validateGraph(const GraphData& g, const std::string& source);

}  // namespace attn::graph
