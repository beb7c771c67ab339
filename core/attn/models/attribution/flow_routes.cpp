#include "attn/models/attribution/flow_routes.h"

#include <fmt/format.h>

#include <cmath>

#include "attn/models/attribution/head_vectors.h"

namespace attn::models {
namespace {

using RouteRow = Eigen::RowVectorXf;

/// The attention block of one layer (Ferrando & Voita 2024, section 2): at
/// query i the whole is x_mid_i = x_i + sum_h sum_j alpha^h_ij f^h(x_j) + b_O, the parts
/// x_i and every alpha^h_ij f^h(x_j); each part's proximity over their sum.
/// Fills `heads` [H] x [N, N], row `l` of `residual` and `mid` (x_mid, [N, d]).
void attentionBlockImportance(const AttentionResult& attn, const std::vector<Mat>& f, const Mat& x,
                              const RouteRow& bO, std::vector<Mat>& heads, Mat& residual, int l, Mat& mid) {
  const int n = static_cast<int>(x.rows()), H = static_cast<int>(f.size());
  mid = x;
  mid.rowwise() += bO;
  for (int h = 0; h < H; ++h)
    mid.noalias() += attn.heads[static_cast<size_t>(h)].weights * f[static_cast<size_t>(h)];
  heads.assign(static_cast<size_t>(H), Mat::Zero(n, n));
#pragma omp parallel for schedule(dynamic, 2)
  for (int i = 0; i < n; ++i) {
    const RouteRow y = mid.row(i);
    const float yNorm = y.lpNorm<1>();
    const float self = altiProximity(y, yNorm, x.row(i));
    double total = self;
    for (int h = 0; h < H; ++h) {
      const Mat& w = attn.heads[static_cast<size_t>(h)].weights;
      const Mat& fh = f[static_cast<size_t>(h)];
      Mat& out = heads[static_cast<size_t>(h)];
      for (int j = 0; j < n; ++j) {
        const float a = w(i, j);
        if (a == 0.0f) continue;  // a masked key (causal or padding) sends nothing
        out(i, j) = altiProximity(y, yNorm, a * fh.row(j));
        total += out(i, j);
      }
    }
    if (total > 0) {
      const float inv = static_cast<float>(1.0 / total);
      for (int h = 0; h < H; ++h) heads[static_cast<size_t>(h)].row(i) *= inv;
      residual(l, i) = self * inv;
    } else {  // no part comes closer than zero: the token keeps itself, as ALTI does
      residual(l, i) = 1.0f;
    }
  }
}

/// The MLP block of one layer (section 2): the whole is the layer's output x_out_i =
/// x_mid_i + mlp_i, the parts x_mid_i and mlp_i (mlp = x_out - x_mid).
void mlpBlockImportance(const Mat& mid, const Mat& out, Mat& mlp, Mat& residual, int l) {
  const int n = static_cast<int>(mid.rows());
  for (int i = 0; i < n; ++i) {
    const RouteRow y = out.row(i);
    const float yNorm = y.lpNorm<1>();
    const float m = altiProximity(y, yNorm, out.row(i) - mid.row(i));
    const float r = altiProximity(y, yNorm, mid.row(i));
    const double total = static_cast<double>(m) + r;
    mlp(l, i) = total > 0 ? static_cast<float>(m / total) : 0.0f;
    residual(l, i) = total > 0 ? static_cast<float>(r / total) : 1.0f;
  }
}

}  // namespace

std::string_view routeEdgeKindName(RouteEdgeKind kind) {
  switch (kind) {
    case RouteEdgeKind::Head:
      return "head";
    case RouteEdgeKind::AttnResidual:
      return "attn_residual";
    case RouteEdgeKind::Mlp:
      return "mlp";
    case RouteEdgeKind::MlpResidual:
      return "mlp_residual";
  }
  return "?";
}

Status checkFlowRouteOptions(const FlowRouteOptions& o, int tokens) {
  if (!(o.threshold > 0.0 && o.threshold <= 1.0))
    return Error{
        fmt::format("threshold {} is outside (0, 1]: an edge is kept when its share of its block's "
                    "output is at least the threshold",
                    o.threshold)};
  if (o.position < -1 || o.position >= tokens)
    return Error{
        fmt::format("position {} is out of range (0..{}, or -1 for the last token)", o.position, tokens - 1)};
  return okStatus();
}

Result<FlowRoutes> computeFlowImportances(const ModelConfig& c, const ModelWeights& w, const ModelRun& run,
                                          const std::string& src, const ProgressFn& progress) {
  if (auto st = checkAttributionRun(c, run, src); !st) return st.error();
  const int n = run.encoding.size(), L = c.layers;
  if (run.lastResidual.rows() != n || run.lastResidual.cols() != c.dModel)
    return Error{src + ": the contribution graph needs the last layer's output before the final norm"};
  FlowRoutes out;
  out.attnImportance.resize(static_cast<size_t>(L));
  out.attnResidualImportance = Mat::Zero(L, n);
  out.mlpImportance = Mat::Zero(L, n);
  out.mlpResidualImportance = Mat::Zero(L, n);
  Mat mid;
  for (int l = 0; l < L; ++l) {
    if (progress && !progress(static_cast<double>(l) / L, "contribution graph"))
      return Error{src + ": cancelled"};
    const AttentionResult& attn = run.layers[static_cast<size_t>(l)];
    const OutputProjection proj = outputProjection(w.layers[static_cast<size_t>(l)].o, c.dModel);
    const std::vector<Mat> f = headValueVectors(attn, proj, c.headDim);
    const Mat& x = run.hiddenStates[static_cast<size_t>(l)];
    attentionBlockImportance(attn, f, x, proj.b, out.attnImportance[static_cast<size_t>(l)],
                             out.attnResidualImportance, l, mid);
    const Mat& next = l + 1 < L ? run.hiddenStates[static_cast<size_t>(l) + 1] : run.lastResidual;
    mlpBlockImportance(mid, next, out.mlpImportance, out.mlpResidualImportance, l);
  }
  if (progress && !progress(1.0, "contribution graph")) return Error{src + ": cancelled"};
  return out;
}

std::vector<RouteEdge> routeEdges(const FlowRoutes& r, int position, double threshold) {
  const int L = static_cast<int>(r.attnImportance.size());
  const int n = static_cast<int>(r.mlpImportance.cols());
  std::vector<RouteEdge> edges;
  if (position < 0 || position >= n) return edges;
  const float tau = static_cast<float>(threshold);
  std::vector<char> reached(static_cast<size_t>(n), 0), mid(static_cast<size_t>(n));
  reached[static_cast<size_t>(position)] = 1;
  auto keep = [&](int l, RouteEdgeKind kind, int head, int from, int to, float imp) {
    if (imp < tau) return false;
    edges.push_back({l, kind, head, from, to, imp});
    return true;
  };
  for (int l = L - 1; l >= 0; --l) {
    std::fill(mid.begin(), mid.end(), 0);
    for (int i = 0; i < n; ++i) {
      if (!reached[static_cast<size_t>(i)]) continue;
      const bool m = keep(l, RouteEdgeKind::Mlp, -1, i, i, r.mlpImportance(l, i));
      const bool res = keep(l, RouteEdgeKind::MlpResidual, -1, i, i, r.mlpResidualImportance(l, i));
      mid[static_cast<size_t>(i)] = m || res;
    }
    std::fill(reached.begin(), reached.end(), 0);
    const auto& heads = r.attnImportance[static_cast<size_t>(l)];
    for (int i = 0; i < n; ++i) {
      if (!mid[static_cast<size_t>(i)]) continue;
      for (size_t h = 0; h < heads.size(); ++h)
        for (int j = 0; j < n; ++j)
          if (keep(l, RouteEdgeKind::Head, static_cast<int>(h), j, i, heads[h](i, j)))
            reached[static_cast<size_t>(j)] = 1;
      if (keep(l, RouteEdgeKind::AttnResidual, -1, i, i, r.attnResidualImportance(l, i)))
        reached[static_cast<size_t>(i)] = 1;
    }
  }
  return edges;
}

}  // namespace attn::models
