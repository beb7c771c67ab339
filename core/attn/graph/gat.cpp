#include "attn/graph/gat.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "attn/engine/init.h"

namespace attn::graph {

std::string_view headCombineName(HeadCombine c) { return c == HeadCombine::Concat ? "concat" : "mean"; }

Result<GatResult> runGat(const GraphData& g, const GatSpec& spec, const GatParams& params) {
  if (auto st = validateGraph(g, "graph"); !st) return st.error();
  if (spec.heads < 1 || spec.heads > 64) return Error{fmt::format("heads must be in 1..64 (got {})", spec.heads)};
  if (spec.outFeatures < 1 || spec.outFeatures > 4096)
    return Error{fmt::format("output features per head must be in 1..4096 (got {})", spec.outFeatures)};
  if (!std::isfinite(spec.negativeSlope) || spec.negativeSlope < 0)
    return Error{fmt::format("LeakyReLU slope must be a finite number >= 0 (got {})", spec.negativeSlope)};
  const int n = g.numNodes, f = static_cast<int>(g.features.cols()), fo = spec.outFeatures, heads = spec.heads;
  if (!params.w.empty() && static_cast<int>(params.w.size()) != heads)
    return Error{fmt::format("'gat_w' has {} heads but {} are asked for", params.w.size(), heads)};
  if (!params.a.empty() && static_cast<int>(params.a.size()) != heads)
    return Error{fmt::format("'gat_a' has {} heads but {} are asked for", params.a.size(), heads)};

  GatResult res;
  res.keep = g.neighbourhood();
  const float ninf = -std::numeric_limits<float>::infinity();
  Mat sum = Mat::Zero(n, fo);
  if (spec.combine == HeadCombine::Concat) res.output = Mat::Zero(n, heads * fo);
  for (int h = 0; h < heads; ++h) {
    Mat w = params.w.empty() ? initMatrix(f, fo, InitScheme::XavierUniform, spec.seed, fmt::format("gat_w:{}", h))
                             : params.w[static_cast<size_t>(h)];
    Vec a = params.a.empty()
                ? Vec(initMatrix(2 * fo, 1, InitScheme::XavierUniform, spec.seed, fmt::format("gat_a:{}", h)).col(0))
                : params.a[static_cast<size_t>(h)];
    if (w.rows() != f || w.cols() != fo)
      return Error{fmt::format("'gat_w' head {} is [{}, {}] but the features need [{}, {}]", h, w.rows(), w.cols(), f, fo)};
    if (a.size() != 2 * fo)
      return Error{fmt::format("'gat_a' head {} has {} values but needs 2 * {} = {}", h, a.size(), fo, 2 * fo)};
    if (!w.allFinite() || !a.allFinite()) return Error{fmt::format("GAT parameters of head {} are not finite", h)};
    const Mat z = g.features * w;             // [N, F']
    const Vec src = z * a.head(fo);           // a_1^T z_i (the attending node)
    const Vec dst = z * a.tail(fo);           // a_2^T z_j (the neighbour)
    Mat e(n, n), alpha = Mat::Zero(n, n);
    for (int i = 0; i < n; ++i) {
      float m = ninf;
      for (int j = 0; j < n; ++j) {
        if (!res.keep[static_cast<size_t>(i) * n + j]) {
          e(i, j) = ninf;
          continue;
        }
        const float s = src(i) + dst(j);
        e(i, j) = s > 0 ? s : spec.negativeSlope * s;
        m = std::max(m, e(i, j));
      }
      double total = 0;
      for (int j = 0; j < n; ++j)
        if (res.keep[static_cast<size_t>(i) * n + j]) total += (alpha(i, j) = std::exp(e(i, j) - m));
      for (int j = 0; j < n; ++j) alpha(i, j) = static_cast<float>(alpha(i, j) / total);  // the self-loop keeps total > 0
    }
    const Mat agg = alpha * z;
    if (spec.combine == HeadCombine::Concat) {
      // ELU (the paper's sigma for hidden layers).
      res.output.middleCols(h * fo, fo) = agg.unaryExpr([](float v) { return v > 0 ? v : std::expm1(v); });
    } else {
      sum += agg;
    }
    res.logits.push_back(std::move(e));
    res.weights.push_back(std::move(alpha));
    res.z.push_back(z);
    res.params.w.push_back(std::move(w));
    res.params.a.push_back(std::move(a));
  }
  if (spec.combine == HeadCombine::Mean) res.output = sum / static_cast<float>(heads);
  return res;
}

}  // namespace attn::graph
