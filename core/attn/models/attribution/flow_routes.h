#pragma once
// Information flow routes (Ferrando & Voita 2024, "Information Flow Routes: Automatically
// Interpreting Language Models at Scale", section 2): the contribution graph of one
// forward pass of a causal language model. Nodes are the residual stream of each token
// between blocks; an edge is one part of a block's output, weighted by ALTI's proximity
// of that part to the whole, normalised over the block's parts.
// Attention block of layer l at token i (x_mid = x + sum_h sum_j alpha^h_ij f^h(x_j) + b_O):
// the residual x_i and, per head h and key j, alpha^h_ij f^h(x_j). MLP block: the residual
// x_mid_i and the MLP's output. b_O is part of the whole y but of no part (it comes from
// no token); the paper's route (Algorithm 1) keeps, from the chosen token at the top, every
// edge at or above a threshold from every node it reaches.
#include <cstdint>
#include <string>
#include <vector>

#include "attn/models/model.h"
#include "attn/models/model_config.h"
#include "attn/models/model_weights.h"

namespace attn::models {

struct FlowRouteOptions {
  int position = -1;        // the token whose route is traced; -1: the last
  double threshold = 0.04;  // tau, in (0, 1]: Ferrando & Voita 2024 use 0.04
};

/// Where an edge goes. Head and AttnResidual edges run from the layer's input (boundary l)
/// to the middle of layer l; Mlp and MlpResidual from the middle to the layer's output
/// (boundary l + 1). The codes are the .npz's edge_kind.
enum class RouteEdgeKind : int8_t { Head = 0, AttnResidual = 1, Mlp = 2, MlpResidual = 3 };
std::string_view routeEdgeKindName(RouteEdgeKind kind);  // "head", "attn_residual", "mlp", "mlp_residual"

struct RouteEdge {
  int layer = 0;
  RouteEdgeKind kind = RouteEdgeKind::Head;
  int head = -1;  // Head edges only; -1 otherwise
  int from = 0;   // key token j (Head), else the token itself
  int to = 0;     // query token i
  float importance = 0;
};

/// Every edge's importance, and the route of FlowRouteOptions.
struct FlowRoutes {
  /// [layer][head] N x N: row i (query), column j (key): alpha^h_ij f^h(x_j)'s share of x_mid_i.
  std::vector<std::vector<Mat>> attnImportance;
  Mat attnResidualImportance;  // [layers, N]: x_i's share of x_mid_i
  Mat mlpImportance;           // [layers, N]: the MLP output's share of the layer's output at i
  Mat mlpResidualImportance;   // [layers, N]: x_mid_i's share of it
  int position = 0;            // the traced token (0-based)
  double threshold = 0.04;
  std::vector<RouteEdge> edges;  // the route, top layer first
};

/// The importances from a forward that kept every layer's heads (weights and v), the
/// layer inputs and ModelRun::lastResidual. Errors name `source`; "cancelled" when
/// `progress` returns false. The route is left empty (routeEdges fills it).
Result<FlowRoutes> computeFlowImportances(const ModelConfig& config, const ModelWeights& weights,
                                          const ModelRun& run, const std::string& source,
                                          const ProgressFn& progress = {});

/// Algorithm 1 of Ferrando & Voita 2024 on the importances of `routes`: from token
/// `position` after the last layer, every edge with importance >= threshold into a node
/// already reached, layer by layer downwards. Ordered by layer (top first), then the MLP
/// block before the attention block, then query, kind, head and key.
std::vector<RouteEdge> routeEdges(const FlowRoutes& routes, int position, double threshold);

/// The faults of a position (given N tokens) or a threshold, one line each, or none.
Status checkFlowRouteOptions(const FlowRouteOptions& options, int tokens);

}  // namespace attn::models
