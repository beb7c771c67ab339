#include "attn/analysis/layers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

namespace attn {
namespace {

Status checkLayers(const LayeredWeights& layers) {
  if (layers.empty()) return Error{"attention layers: no layers given"};
  Eigen::Index n = -1;
  for (size_t l = 0; l < layers.size(); ++l) {
    if (layers[l].empty()) return Error{fmt::format("attention layers: layer {} has no heads", l + 1)};
    for (size_t h = 0; h < layers[l].size(); ++h) {
      const Mat& a = layers[l][h];
      if (a.rows() != a.cols() || a.rows() == 0)
        return Error{fmt::format("attention layers: layer {} head {} is {}x{}; rollout needs square "
                                 "self-attention weights",
                                 l + 1, h + 1, a.rows(), a.cols())};
      if (n >= 0 && a.rows() != n)
        return Error{fmt::format("attention layers: layer {} head {} is {}x{}, others are {}x{}", l + 1, h + 1,
                                 a.rows(), a.cols(), n, n)};
      n = a.rows();
    }
  }
  return okStatus();
}

// Dinic's max-flow on a small dense-ish graph; capacities in double.
class MaxFlow {
 public:
  explicit MaxFlow(int nodes) : head_(static_cast<size_t>(nodes), -1), level_(head_.size()), it_(head_.size()) {}

  void addEdge(int u, int v, double cap) {
    edges_.push_back({v, head_[static_cast<size_t>(u)], cap});
    head_[static_cast<size_t>(u)] = static_cast<int>(edges_.size()) - 1;
    edges_.push_back({u, head_[static_cast<size_t>(v)], 0.0});
    head_[static_cast<size_t>(v)] = static_cast<int>(edges_.size()) - 1;
  }

  void reset() {
    // Restores the original capacities: even edges are forward, odd residual.
    for (size_t e = 0; e < edges_.size(); e += 2) {
      edges_[e].cap += edges_[e + 1].cap;
      edges_[e + 1].cap = 0.0;
    }
  }

  double run(int s, int t) {
    double flow = 0.0;
    while (bfs(s, t)) {
      std::copy(head_.begin(), head_.end(), it_.begin());
      while (const double f = dfs(s, t, std::numeric_limits<double>::infinity())) flow += f;
    }
    return flow;
  }

 private:
  struct Edge {
    int to, next;
    double cap;
  };
  static constexpr double kEps = 1e-12;  // capacities below this count as saturated

  bool bfs(int s, int t) {
    std::fill(level_.begin(), level_.end(), -1);
    std::queue<int> q;
    level_[static_cast<size_t>(s)] = 0;
    q.push(s);
    while (!q.empty()) {
      const int u = q.front();
      q.pop();
      for (int e = head_[static_cast<size_t>(u)]; e >= 0; e = edges_[static_cast<size_t>(e)].next) {
        const Edge& ed = edges_[static_cast<size_t>(e)];
        if (ed.cap > kEps && level_[static_cast<size_t>(ed.to)] < 0) {
          level_[static_cast<size_t>(ed.to)] = level_[static_cast<size_t>(u)] + 1;
          q.push(ed.to);
        }
      }
    }
    return level_[static_cast<size_t>(t)] >= 0;
  }

  double dfs(int u, int t, double pushed) {
    if (u == t) return pushed;
    for (int& e = it_[static_cast<size_t>(u)]; e >= 0; e = edges_[static_cast<size_t>(e)].next) {
      Edge& ed = edges_[static_cast<size_t>(e)];
      if (ed.cap <= kEps || level_[static_cast<size_t>(ed.to)] != level_[static_cast<size_t>(u)] + 1) continue;
      const double f = dfs(ed.to, t, std::min(pushed, ed.cap));
      if (f > 0.0) {
        ed.cap -= f;
        edges_[static_cast<size_t>(e ^ 1)].cap += f;
        return f;
      }
    }
    return 0.0;
  }

  std::vector<Edge> edges_;
  std::vector<int> head_, level_, it_;
};

}  // namespace

namespace {

// 0.5 * the heads' mean + 0.5 * e_i, renormalized (a row with no mass becomes e_i).
void residualRow(Eigen::ArrayXd& row, Eigen::Index i, double half) {
  row *= half;
  row(i) += 0.5;
  const double s = row.sum();
  if (s > 0.0) row /= s;
}

}  // namespace

Mat residualAttention(const std::vector<Mat>& heads) {
  const Eigen::Index n = heads.front().rows();
  const double half = 0.5 / static_cast<double>(heads.size());
  Mat r(n, n);
  // Row by row (the maps are row-major; a column-major sum walked each row with
  // a stride of N doubles), in double as before, rows split over the threads.
#pragma omp parallel if (n >= 256)
  {
    Eigen::ArrayXd row(n);
#pragma omp for schedule(static)
    for (Eigen::Index i = 0; i < n; ++i) {
      row.setZero();
      for (const Mat& a : heads) row += a.row(i).transpose().array().cast<double>();
      residualRow(row, i, half);
      r.row(i) = row.transpose().cast<float>();
    }
  }
  return r;
}

namespace {

using RowMajorXd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

bool lowerTriangular(const RowMajorXd& a) {
  for (Eigen::Index i = 0; i + 1 < a.rows(); ++i)
    if ((a.row(i).tail(a.cols() - i - 1).array() != 0.0).any()) return false;
  return true;
}

/// out = a * r in column blocks over the threads (Eigen's own GEMM threading is off).
/// When both are lower triangular (causal layers, and so every rollout of them)
/// block [j0, j0 + w) of the product is zero above row j0 and takes only the
/// lower-right corner of a: a sixth of the multiply-adds of the dense product.
void rolloutStep(const RowMajorXd& a, const Eigen::MatrixXd& r, bool lower, Eigen::MatrixXd& out) {
  constexpr Eigen::Index kBlock = 64;
  const Eigen::Index n = a.rows(), blocks = (n + kBlock - 1) / kBlock;
  out.resize(n, n);
#pragma omp parallel for schedule(dynamic, 1) if (n >= 256)
  for (Eigen::Index b = 0; b < blocks; ++b) {  // the largest blocks first
    const Eigen::Index j0 = b * kBlock, w = std::min(kBlock, n - j0), m = n - j0;
    if (lower) {
      out.block(0, j0, j0, w).setZero();  // here, in the threads: 8 MB at 1,024 tokens
      out.block(j0, j0, m, w).noalias() =
          a.bottomRightCorner(m, m).triangularView<Eigen::Lower>() * r.block(j0, j0, m, w);
    } else {
      out.middleCols(j0, w).noalias() = a * r.middleCols(j0, w);
    }
  }
}

}  // namespace

Status RunningRollout::check(const Mat& m) const {
  if (m.rows() != m.cols() || m.rows() == 0 || (layers_ > 0 && m.rows() != r_.rows()))
    return Error{
        fmt::format("attention rollout: layer {} is {}x{}{}", layers_ + 1, m.rows(), m.cols(),
                    layers_ > 0 ? fmt::format(", the layers before it {}x{}", r_.rows(), r_.cols()) : "")};
  return okStatus();
}

namespace {

/// dst = src (converted), 64 columns at a time over the threads: src and dst differ in storage
/// order, and the transposing copy of 8 MB at 1,024 tokens held the other core idle.
template <typename Dst, typename Src>
void copyByColumnBlocks(const Src& src, Dst& dst) {
  constexpr Eigen::Index kBlock = 64;
  const Eigen::Index n = src.rows(), m = src.cols();
  dst.resize(n, m);
#pragma omp parallel for schedule(static) if (n * m >= (Eigen::Index{1} << 16))
  for (Eigen::Index j0 = 0; j0 < m; j0 += kBlock) {
    const Eigen::Index w = std::min(kBlock, m - j0);
    dst.middleCols(j0, w) = src.middleCols(j0, w).template cast<typename Dst::Scalar>();
  }
}

}  // namespace

Mat RunningRollout::current() const {
  Mat out;
  copyByColumnBlocks(r_, out);
  return out;
}

void RunningRollout::step(bool aLower) {
  lower_ = lower_ && aLower;
  if (layers_ == 0) {
    copyByColumnBlocks(a_, r_);
  } else {
    rolloutStep(a_, r_, lower_, next_);
    r_.swap(next_);
  }
  ++layers_;
}

Status RunningRollout::add(const Mat& residual) {
  if (auto st = check(residual); !st) return st;
  a_ = residual.cast<double>();
  step(lowerTriangular(a_));
  return okStatus();
}

Status RunningRollout::addHeadSum(const Mat& headSum, int heads) {
  if (auto st = check(headSum); !st) return st;
  const Eigen::Index n = headSum.rows();
  const double half = 0.5 / static_cast<double>(std::max(heads, 1));
  a_.resize(n, n);
  bool upper = false;  // a weight above the diagonal (checked here, in the threads, not after)
#pragma omp parallel if (n >= 256) reduction(|| : upper)
  {
    Eigen::ArrayXd row(n);
#pragma omp for schedule(static)
    for (Eigen::Index i = 0; i < n; ++i) {
      row = headSum.row(i).transpose().array().cast<double>();
      residualRow(row, i, half);
      a_.row(i) = row.transpose();
      upper = upper || (row.tail(n - i - 1) != 0.0).any();
    }
  }
  step(!upper);
  return okStatus();
}

Result<std::vector<Mat>> attentionRollout(const LayeredWeights& layers) {
  if (auto st = checkLayers(layers); !st) return st.error();
  std::vector<Mat> out;
  RunningRollout rollout;
  for (const auto& heads : layers) {
    if (auto st = rollout.add(residualAttention(heads)); !st) return st.error();
    out.push_back(rollout.current());
  }
  return out;
}

Status attentionFlowFits(int layers, int n) {
  const double work = static_cast<double>(layers) * std::pow(static_cast<double>(n), 4);
  if (work > kMaxAttentionFlowWork)
    return Error{
        fmt::format("attention flow: {} layers of {} tokens is too large for exact max-flow "
                    "(layers * N^4 = {:.3g} > {:.3g}); use rollout",
                    layers, n, work, kMaxAttentionFlowWork)};
  return okStatus();
}

Result<Mat> attentionFlow(const LayeredWeights& layers) {
  if (auto st = checkLayers(layers); !st) return st.error();
  const int n = static_cast<int>(layers.front().front().rows());
  const int nl = static_cast<int>(layers.size());
  if (auto st = attentionFlowFits(nl, n); !st) return st.error();
  // Node (l, i) = l * n + i, l = 0 is the input embedding layer.
  MaxFlow g((nl + 1) * n);
  for (int l = 1; l <= nl; ++l) {
    const Mat a = residualAttention(layers[static_cast<size_t>(l - 1)]);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (a(i, j) > 0.0f) g.addEdge((l - 1) * n + j, l * n + i, a(i, j));
  }
  Eigen::MatrixXd f(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      g.reset();
      f(i, j) = g.run(j, nl * n + i);
    }
  for (int i = 0; i < n; ++i) {
    const double s = f.row(i).sum();
    if (s > 0.0) f.row(i) /= s;
  }
  return Mat(f.cast<float>());
}

}  // namespace attn
