#include "attn/graph/force_layout.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "attn/engine/random.h"

namespace attn::graph {

Mat forceLayout(const GraphData& g, const LayoutOptions& o) {
  const int n = g.numNodes;
  Mat pos(std::max(n, 0), 2);
  if (n <= 0) return pos;
  SeededRng rng(streamSeed(o.seed, "force_layout"));
  for (int i = 0; i < n; ++i) {
    pos(i, 0) = static_cast<float>(rng.uniform());
    pos(i, 1) = static_cast<float>(rng.uniform());
  }
  if (n == 1) {
    pos.setConstant(0.5f);
    return pos;
  }
  std::vector<double> px(n), py(n);  // plain arrays: the inner loop runs N x neighbours x iterations
  for (int i = 0; i < n; ++i) px[i] = pos(i, 0), py[i] = pos(i, 1);
  const int iterations = o.iterations > 0 ? o.iterations : std::max(100, std::min(300, 90000 / n));
  const double k = std::sqrt(1.0 / n);  // area 1
  const double reach = 2 * k;
  const int cells = std::max(1, static_cast<int>(1.0 / reach));
  std::vector<std::vector<int>> grid(static_cast<size_t>(cells) * cells);
  std::vector<double> dx(n), dy(n);
  double temp = 0.1;
  const double cool = temp / (iterations + 1);
  auto cellOf = [&](double v) { return std::clamp(static_cast<int>(v * cells), 0, cells - 1); };
  for (int it = 0; it < iterations; ++it) {
    std::fill(dx.begin(), dx.end(), 0.0);
    std::fill(dy.begin(), dy.end(), 0.0);
    for (auto& c : grid) c.clear();
    for (int i = 0; i < n; ++i) grid[static_cast<size_t>(cellOf(py[i])) * cells + cellOf(px[i])].push_back(i);
    for (int i = 0; i < n; ++i) {
      const int cx = cellOf(px[i]), cy = cellOf(py[i]);
      for (int gy = std::max(0, cy - 1); gy <= std::min(cells - 1, cy + 1); ++gy)
        for (int gx = std::max(0, cx - 1); gx <= std::min(cells - 1, cx + 1); ++gx)
          for (int j : grid[static_cast<size_t>(gy) * cells + gx]) {
            if (j == i) continue;
            double ex = px[i] - px[j], ey = py[i] - py[j];
            double d = std::sqrt(ex * ex + ey * ey);
            if (d < 1e-9) {  // coincident: push apart along a fixed direction by index
              ex = (i < j ? 1e-4 : -1e-4);
              ey = 0;
              d = 1e-4;
            }
            if (d > reach) continue;
            const double f = k * k / d;
            dx[i] += ex / d * f;
            dy[i] += ey / d * f;
          }
    }
    for (auto [s, t] : g.edges) {
      const double ex = px[s] - px[t], ey = py[s] - py[t];
      const double d = std::sqrt(ex * ex + ey * ey);
      if (d < 1e-12) continue;
      const double f = d * d / k;
      dx[s] -= ex / d * f;
      dy[s] -= ey / d * f;
      dx[t] += ex / d * f;
      dy[t] += ey / d * f;
    }
    for (int i = 0; i < n; ++i) {
      const double len = std::sqrt(dx[i] * dx[i] + dy[i] * dy[i]);
      if (len < 1e-12) continue;
      const double step = std::min(len, temp);
      px[i] = std::clamp(px[i] + dx[i] / len * step, 0.0, 1.0);
      py[i] = std::clamp(py[i] + dy[i] / len * step, 0.0, 1.0);
    }
    temp -= cool;
  }
  for (int i = 0; i < n; ++i) {
    pos(i, 0) = static_cast<float>(px[i]);
    pos(i, 1) = static_cast<float>(py[i]);
  }
  // Fill [0, 1]^2 keeping the aspect ratio.
  const Eigen::RowVector2f lo = pos.colwise().minCoeff(), hi = pos.colwise().maxCoeff();
  const float span = std::max({hi(0) - lo(0), hi(1) - lo(1), 1e-6f});
  for (int i = 0; i < n; ++i) {
    pos(i, 0) = (pos(i, 0) - lo(0)) / span + (1.0f - (hi(0) - lo(0)) / span) / 2;
    pos(i, 1) = (pos(i, 1) - lo(1)) / span + (1.0f - (hi(1) - lo(1)) / span) / 2;
  }
  return pos;
}

}  // namespace attn::graph
