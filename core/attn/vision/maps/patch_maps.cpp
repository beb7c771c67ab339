#include "attn/vision/maps/patch_maps.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attn::vision {

Status checkPatchLayout(const PatchLayout& l, int tokens) {
  if (l.prefix < 0 || l.rows <= 0 || l.cols <= 0 || l.patch <= 0)
    return Error{
        fmt::format("patch layout: {} prefix tokens, {} x {} patches of {} px; expected a positive grid",
                    l.prefix, l.rows, l.cols, l.patch)};
  if (l.tokens() != tokens)
    return Error{
        fmt::format("patch layout: {} prefix tokens + {} x {} patches = {} tokens, but the maps have {}",
                    l.prefix, l.rows, l.cols, l.tokens(), tokens)};
  return okStatus();
}

Mat queryPatchMap(const Eigen::Ref<const Mat>& weights, int query, const PatchLayout& l) {
  Mat map(l.rows, l.cols);
  for (int r = 0; r < l.rows; ++r)
    for (int c = 0; c < l.cols; ++c) map(r, c) = weights(query, l.prefix + r * l.cols + c);
  return map;
}

Mat normalizedToMax(const Mat& map) {
  const float top = map.size() > 0 ? map.maxCoeff() : 0.0f;
  if (!(top > 0.0f)) return Mat::Zero(map.rows(), map.cols());
  return map / top;
}

Mat massMask(const Mat& map, double fraction) {
  const auto n = static_cast<size_t>(map.size());
  Mat keep = Mat::Zero(map.rows(), map.cols());
  const double total = map.cast<double>().sum();
  if (!(total > 0.0)) return keep;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  const float* v = map.data();
  std::stable_sort(order.begin(), order.end(), [v](size_t a, size_t b) { return v[a] < v[b]; });
  double cum = 0.0;
  for (size_t i : order) {
    cum += static_cast<double>(v[i]) / total;
    if (cum > 1.0 - fraction) keep.data()[i] = 1.0f;
  }
  return keep;
}

double meanAttentionDistancePixels(const Eigen::Ref<const Mat>& w, const PatchLayout& l) {
  const int n = l.patches();
  if (n <= 0) return 0.0;
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    const int ri = i / l.cols, ci = i % l.cols;
    double d = 0.0;
    for (int j = 0; j < n; ++j) {
      const double dr = ri - j / l.cols, dc = ci - j % l.cols;
      d += static_cast<double>(w(l.prefix + i, l.prefix + j)) * std::sqrt(dr * dr + dc * dc);
    }
    sum += d * l.patch;
  }
  return sum / n;
}

namespace {

Status checkQueryMapLayers(const LayeredWeights& layers, int query, const PatchLayout& l) {
  if (layers.empty() || layers.front().empty()) return Error{"patch maps: no attention layers"};
  const size_t heads = layers.front().size();
  const auto n = layers.front().front().rows();
  for (size_t li = 0; li < layers.size(); ++li) {
    if (layers[li].size() != heads)
      return Error{
          fmt::format("patch maps: layer {} has {} heads, layer 1 has {}", li + 1, layers[li].size(), heads)};
    for (const Mat& m : layers[li])
      if (m.rows() != n || m.cols() != n)
        return Error{fmt::format("patch maps: layer {} has a {} x {} map; expected {} x {}", li + 1, m.rows(),
                                 m.cols(), n, n)};
  }
  if (auto st = checkPatchLayout(l, static_cast<int>(n)); !st) return st;
  if (query < 0 || query >= n)
    return Error{fmt::format("patch maps: query {} is out of range (0..{})", query, n - 1)};
  return okStatus();
}

}  // namespace

Result<QueryMaps> computeQueryMaps(const LayeredWeights& layers, int query, const PatchLayout& l,
                                   double fraction, const std::function<bool(double)>& progress) {
  if (auto st = checkQueryMapLayers(layers, query, l); !st) return st.error();
  if (!(fraction > 0.0 && fraction <= 1.0))
    return Error{fmt::format("patch maps: mass fraction {} is outside (0, 1]", fraction)};
  QueryMaps out;
  out.layers = static_cast<int>(layers.size());
  out.heads = static_cast<int>(layers.front().size());
  out.query = query;
  out.fraction = fraction;
  for (int li = 0; li < out.layers; ++li) {
    for (const Mat& w : layers[static_cast<size_t>(li)]) {
      out.head.push_back(queryPatchMap(w, query, l));
      out.mask.push_back(massMask(out.head.back(), fraction));
    }
    if (progress && !progress(0.5 * (li + 1) / out.layers)) return Error{"cancelled"};
  }
  auto rollout = attentionRollout(layers);
  if (!rollout) return rollout.error();
  for (const Mat& r : *rollout) out.rollout.push_back(queryPatchMap(r, query, l));
  if (progress && !progress(1.0)) return Error{"cancelled"};
  return out;
}

}  // namespace attn::vision
