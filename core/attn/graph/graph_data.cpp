#include "attn/graph/graph_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "attn/io/csv_reader.h"
#include "attn/io/npy_reader.h"
#include "attn/engine/random.h"

namespace attn::graph {

std::vector<uint8_t> GraphData::neighbourhood() const {
  const size_t n = static_cast<size_t>(std::max(numNodes, 0));
  std::vector<uint8_t> keep(n * n, 0);
  for (size_t i = 0; i < n; ++i) keep[i * n + i] = 1;
  for (auto [s, t] : edges) {
    keep[static_cast<size_t>(t) * n + s] = 1;  // target t gathers from source s
    if (!directed) keep[static_cast<size_t>(s) * n + t] = 1;
  }
  return keep;
}

Status validateGraph(const GraphData& g, const std::string& source) {
  if (g.numNodes <= 0) return Error{fmt::format("{}: the graph has no nodes", source)};
  if (g.numNodes > kMaxNodes)
    return Error{fmt::format("{}: {} nodes is more than the {} the graph view handles", source, g.numNodes, kMaxNodes)};
  for (size_t e = 0; e < g.edges.size(); ++e) {
    const auto [s, t] = g.edges[e];
    if (s < 0 || t < 0 || s >= g.numNodes || t >= g.numNodes)
      return Error{fmt::format("{}: edge {} ({} -> {}) names a node outside 0..{}", source, e, s, t, g.numNodes - 1)};
  }
  if (g.features.rows() != g.numNodes)
    return Error{fmt::format("{}: {} feature rows for {} nodes", source, g.features.rows(), g.numNodes)};
  if (g.features.cols() <= 0) return Error{fmt::format("{}: the node features have no columns", source)};
  if (!g.features.allFinite()) return Error{fmt::format("{}: the node features hold a non-finite value", source)};
  if (!g.labels.empty() && static_cast<int>(g.labels.size()) != g.numNodes)
    return Error{fmt::format("{}: {} labels for {} nodes", source, g.labels.size(), g.numNodes)};
  return okStatus();
}

namespace {

void defaultLabels(GraphData& g) {
  if (!g.labels.empty()) return;
  for (int i = 0; i < g.numNodes; ++i) g.labels.push_back(std::to_string(i));
}

// Sorted, unique, without self-loops (GAT adds its own).
void normalizeEdges(GraphData& g) {
  std::set<std::pair<int, int>> seen;
  std::vector<std::pair<int, int>> kept;
  for (auto e : g.edges) {
    if (e.first == e.second) continue;
    auto key = g.directed ? e : std::pair{std::min(e.first, e.second), std::max(e.first, e.second)};
    if (seen.insert(key).second) kept.push_back(e);
  }
  g.edges = std::move(kept);
}

}  // namespace

Result<GraphData> readEdgeListCsv(const std::string& path, int numNodes) {
  auto csv = readCsvMatrixFile(path);
  if (!csv) return csv.error();
  const Mat& v = csv->values;
  if (v.cols() < 2)
    return Error{fmt::format("{}: an edge list needs two columns (source, target); found {}", path, v.cols())};
  GraphData g;
  int maxIndex = -1;
  for (Eigen::Index r = 0; r < v.rows(); ++r)
    for (int c = 0; c < 2; ++c) {
      const float x = v(r, c);
      if (!std::isfinite(x) || x < 0 || x != std::floor(x) || x >= static_cast<float>(kMaxNodes))
        return Error{fmt::format("{}: row {}: node {} is not an index in 0..{}", path, r + 1, x, kMaxNodes - 1)};
      maxIndex = std::max(maxIndex, static_cast<int>(x));
    }
  for (Eigen::Index r = 0; r < v.rows(); ++r) g.edges.emplace_back(static_cast<int>(v(r, 0)), static_cast<int>(v(r, 1)));
  g.numNodes = numNodes > 0 ? numNodes : maxIndex + 1;
  if (g.numNodes <= 0) return Error{fmt::format("{}: no edges", path)};
  if (maxIndex >= g.numNodes)
    return Error{fmt::format("{}: node {} is past the {} nodes of the features", path, maxIndex, g.numNodes)};
  normalizeEdges(g);
  defaultLabels(g);
  return g;
}

Result<GraphArrays> readGraphArrays(const std::string& path) {
  auto arrays = readNpzFile(path);
  if (!arrays) return arrays.error();
  GraphArrays out;
  GraphData& g = out.graph;
  const NpyArray* adj = nullptr;
  const NpyArray* x = nullptr;
  const NpyArray* labels = nullptr;
  for (const auto& a : *arrays) {
    if (a.name == "adj") adj = &a;
    if (a.name == "x" || a.name == "features") x = &a;
    if (a.name == "labels") labels = &a;
  }
  if (!adj && !x) return Error{fmt::format("{}: no 'adj' [N, N] or 'x' [N, F] array", path)};
  if (adj) {
    if (adj->isText || adj->shape.size() != 2 || adj->shape[0] != adj->shape[1])
      return Error{fmt::format("{}: array 'adj' has shape {} (expected [N, N])", path, adj->shapeString())};
    const int64_t n = adj->shape[0];
    if (n <= 0 || n > kMaxNodes)
      return Error{fmt::format("{}: array 'adj' has {} nodes (1..{})", path, n, kMaxNodes)};
    g.numNodes = static_cast<int>(n);
    g.directed = false;
    bool symmetric = true;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const float a = adj->values.data[static_cast<size_t>(i * n + j)];
        if (!std::isfinite(a)) return Error{fmt::format("{}: array 'adj' holds a non-finite value at [{}, {}]", path, i, j)};
        const bool edge = a != 0.0f, back = adj->values.data[static_cast<size_t>(j * n + i)] != 0.0f;
        symmetric = symmetric && edge == back;
        if (edge && i != j) g.edges.emplace_back(static_cast<int>(i), static_cast<int>(j));
      }
    g.directed = !symmetric;
    out.hasAdjacency = true;
  }
  if (x) {
    if (x->isText || x->shape.size() != 2)
      return Error{fmt::format("{}: array '{}' has shape {} (expected [N, F])", path, x->name, x->shapeString())};
    g.features = Mat(x->values.slice2d(0));
    if (!adj) g.numNodes = static_cast<int>(g.features.rows());
  }
  if (labels) {
    if (!labels->isText || labels->shape.size() != 1)
      return Error{fmt::format("{}: array 'labels' must be [N] strings (got {})", path, labels->shapeString())};
    g.labels = labels->strings;
  }
  normalizeEdges(g);
  if (g.labels.empty()) defaultLabels(g);
  if (g.features.size() > 0 && g.features.rows() != g.numNodes)
    return Error{fmt::format("{}: '{}' has {} rows but 'adj' has {} nodes", path, x->name, g.features.rows(), g.numNodes)};
  if (static_cast<int>(g.labels.size()) != g.numNodes)
    return Error{fmt::format("{}: {} labels for {} nodes", path, g.labels.size(), g.numNodes)};
  return out;
}

Status attachFeatures(GraphData& g, const Mat& features, const std::string& source) {
  if (features.rows() != g.numNodes)
    return Error{fmt::format("{}: {} feature rows for {} nodes", source, features.rows(), g.numNodes)};
  g.features = features;
  return okStatus();
}

Mat identityFeatures(int numNodes) { return Mat::Identity(numNodes, numNodes); }

GraphData exampleGraph(uint64_t seed) {
  GraphData g;
  constexpr int kGroups = 3, kSize = 6;
  g.numNodes = kGroups * kSize;
  SeededRng rng(streamSeed(seed, "example_graph"));
  for (int c = 0; c < kGroups; ++c)
    for (int a = 0; a < kSize; ++a)
      for (int b = a + 1; b < kSize; ++b)
        if ((a + b) % 3 != 0 || b == a + 1) g.edges.emplace_back(c * kSize + a, c * kSize + b);
  // Bridges: each community's node 0 to the next community's node 3, and one chord.
  for (int c = 0; c < kGroups; ++c) g.edges.emplace_back(c * kSize, ((c + 1) % kGroups) * kSize + 3);
  g.edges.emplace_back(2, 14);
  g.features = Mat::Zero(g.numNodes, kGroups + 2);
  for (int i = 0; i < g.numNodes; ++i) {
    g.groups.push_back(i / kSize);
    g.features(i, i / kSize) = 1.0f;
    g.features(i, kGroups) = static_cast<float>(0.3 * rng.normal());
    g.features(i, kGroups + 1) = static_cast<float>(0.3 * rng.normal());
    g.labels.push_back(fmt::format("{}{}", static_cast<char>('A' + i / kSize), i % kSize));
  }
  normalizeEdges(g);
  return g;
}

}  // namespace attn::graph
