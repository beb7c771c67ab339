#include "attn/analysis/head_similarity.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <random>

#include "attn/analysis/fused_rows.h"

namespace attn {

namespace {

// Vectorized JS of two rows, in nats; p and q are clamped at 0 and rescaled
// to sum 1. Zero entries contribute nothing (0 log 0 = 0).
double jsNats(const Eigen::Ref<const Eigen::RowVectorXf>& pRow, const Eigen::Ref<const Eigen::RowVectorXf>& qRow) {
  const Eigen::ArrayXf p0 = pRow.transpose().array().max(0.0f), q0 = qRow.transpose().array().max(0.0f);
  const float sp = p0.sum(), sq = q0.sum();
  if (!(sp > 0.0f) || !(sq > 0.0f)) return 0.0;
  const Eigen::ArrayXf p = p0 / sp, q = q0 / sq;
  const Eigen::ArrayXf m = 0.5f * (p + q);
  const double kp = (p > 0.0f).select(p * (p / m).log(), 0.0f).cast<double>().sum();
  const double kq = (q > 0.0f).select(q * (q / m).log(), 0.0f).cast<double>().sum();
  return std::max(0.0, 0.5 * (kp + kq));  // rounding can leave -1e-9
}

}  // namespace

double jensenShannon(const Eigen::Ref<const Eigen::RowVectorXf>& p, const Eigen::Ref<const Eigen::RowVectorXf>& q,
                     EntropyUnit unit) {
  assert(p.size() == q.size());
  const double js = jsNats(p, q);
  return unit == EntropyUnit::Bits ? js / std::numbers::ln2 : js;
}

double headJensenShannon(const Eigen::Ref<const Mat>& a, const Eigen::Ref<const Mat>& b, EntropyUnit unit) {
  assert(a.rows() == b.rows() && a.cols() == b.cols());
  double sum = 0.0;
  int rows = 0;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    if (!(a.row(i).maxCoeff() > 0.0f) || !(b.row(i).maxCoeff() > 0.0f)) continue;
    sum += jsNats(a.row(i), b.row(i));
    ++rows;
  }
  const double js = rows > 0 ? sum / rows : 0.0;
  return unit == EntropyUnit::Bits ? js / std::numbers::ln2 : js;
}

namespace {
constexpr double kAutoExactPairs = 66;  // DivergenceOptions::autoExactMaxCells: 12 heads' pairs
}  // namespace

std::vector<char> divergenceRows(int nq, int nk, int heads, const DivergenceOptions& options, EntropyUnit unit,
                                 DivergenceInfo& info) {
  info = {};
  info.rowsTotal = std::max(nq, 0);
  // Auto: the exact cost is every pair's cells, H (H - 1) / 2 x Nq x Nk; the cell limit holds
  // as it is up to 12 heads (66 pairs), and a model with more heads samples sooner (32 heads:
  // above about 2,985 x 2,985).
  const double cells = static_cast<double>(nq) * nk, pairs = std::max(1.0, heads * (heads - 1) / 2.0);
  const double limit = static_cast<double>(options.autoExactMaxCells);
  const bool sample = options.mode == DivergenceOptions::Mode::Sampled ||
                      (options.mode == DivergenceOptions::Mode::Auto &&
                       (cells > limit || cells * pairs > limit * kAutoExactPairs));
  const int n = std::clamp(options.sampleRows, 1, std::max(nq, 1));
  if (!sample || n >= nq) {
    info.rowsUsed = info.rowsTotal;
    return std::vector<char>(static_cast<size_t>(info.rowsTotal), 1);
  }
  // Partial Fisher-Yates with a fixed seed: a uniform sample without replacement.
  std::vector<int> order(static_cast<size_t>(nq));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(options.seed);
  std::vector<char> use(static_cast<size_t>(nq), 0);
  for (int k = 0; k < n; ++k) {
    std::uniform_int_distribution<int> pick(k, nq - 1);
    std::swap(order[static_cast<size_t>(k)], order[static_cast<size_t>(pick(rng))]);
    use[static_cast<size_t>(order[static_cast<size_t>(k)])] = 1;
  }
  const double delta = std::clamp(1.0 - options.confidence, 1e-12, 1.0);
  const double fpc = 1.0 - (n - 1.0) / nq;
  double bound = std::numbers::ln2 * std::sqrt(fpc * std::log(2.0 * pairs / delta) / (2.0 * n));
  if (unit == EntropyUnit::Bits) bound /= std::numbers::ln2;
  info.sampled = true;
  info.rowsUsed = n;
  info.bound = bound;
  info.confidence = options.confidence;
  return use;
}

PairDivergence::PairDivergence(int heads)
    : heads_(heads), sum_(static_cast<size_t>(heads * heads), 0.0), rows_(static_cast<size_t>(heads * heads), 0) {}

void PairDivergence::addRow(const std::vector<const float*>& p, const std::vector<double>& plogp,
                            const std::vector<char>& hasMass, int n, bool halves) {
  for (int a = 0; a < heads_; ++a) {
    if (!hasMass[static_cast<size_t>(a)]) continue;
    for (int b = a + 1; b < heads_; ++b) {
      if (!hasMass[static_cast<size_t>(b)]) continue;
      const auto ua = static_cast<size_t>(a), ub = static_cast<size_t>(b);
      const double js = halves ? 0.5 * (plogp[ua] + plogp[ub]) - mlogmSumOfHalves(p[ua], p[ub], n)
                               : jsRowFromSums(p[ua], p[ub], plogp[ua], plogp[ub], n);
      const auto k = static_cast<size_t>(a * heads_ + b);
      sum_[k] += std::max(0.0, js);  // rounding can leave -1e-9
      ++rows_[k];
    }
  }
}

void PairDivergence::merge(const PairDivergence& o) {
  for (size_t k = 0; k < sum_.size(); ++k) {
    sum_[k] += o.sum_[k];
    rows_[k] += o.rows_[k];
  }
}

Mat PairDivergence::matrix(EntropyUnit unit) const {
  Mat d = Mat::Zero(heads_, heads_);
  const double scale = unit == EntropyUnit::Bits ? 1.0 / std::numbers::ln2 : 1.0;
  for (int a = 0; a < heads_; ++a)
    for (int b = a + 1; b < heads_; ++b) {
      const auto k = static_cast<size_t>(a * heads_ + b);
      if (rows_[k] > 0) d(a, b) = d(b, a) = static_cast<float>(sum_[k] / rows_[k] * scale);
    }
  return d;
}

const float* jsReadyRow(const float* p, int n, std::vector<float>& buffer) {
  const Eigen::Map<const Eigen::ArrayXf> row(p, n);
  if (n == 0 || !(row.maxCoeff() > 0.0f)) return nullptr;
  const double s = row.cast<double>().sum();
  if (std::abs(s - 1.0) <= 1e-5) return p;
  buffer.resize(static_cast<size_t>(n));
  Eigen::Map<Eigen::ArrayXf>(buffer.data(), n) = row / static_cast<float>(s);
  return buffer.data();
}

Mat headSimilarityMatrix(const std::vector<const Mat*>& heads, EntropyUnit unit, const DivergenceOptions& options,
                         DivergenceInfo* infoOut) {
  const int nh = static_cast<int>(heads.size());
  Eigen::Index nq = 0, nk = 0;
  for (const Mat* m : heads)
    if (m->size() > 0) {
      nq = m->rows();
      nk = m->cols();
      break;
    }
  std::vector<char> valid(static_cast<size_t>(nh), 0);
  for (int h = 0; h < nh; ++h) {
    const Mat& m = *heads[static_cast<size_t>(h)];
    valid[static_cast<size_t>(h)] = m.size() > 0 && m.rows() == nq && m.cols() == nk;
  }
  DivergenceInfo info;
  const std::vector<char> use =
      divergenceRows(static_cast<int>(nq), static_cast<int>(nk), nh, options, unit, info);
  if (infoOut) *infoOut = info;
  std::vector<int> rows;
  for (int i = 0; i < static_cast<int>(nq); ++i)
    if (use[static_cast<size_t>(i)]) rows.push_back(i);
  PairDivergence total(nh);
  if (nh < 2 || nk == 0) return total.matrix(unit);
  const int n = static_cast<int>(nk);
  const int numRows = static_cast<int>(rows.size());
#pragma omp parallel
  {
    PairDivergence local(nh);
    std::vector<std::vector<float>> rescaled(static_cast<size_t>(nh));
    std::vector<const float*> p(static_cast<size_t>(nh));
    std::vector<double> lp(static_cast<size_t>(nh));
    std::vector<char> mass(static_cast<size_t>(nh));
#pragma omp for schedule(dynamic, 16)
    for (int r = 0; r < numRows; ++r) {
      const int i = rows[static_cast<size_t>(r)];
      for (int h = 0; h < nh; ++h) {
        const auto uh = static_cast<size_t>(h);
        p[uh] = valid[uh] ? jsReadyRow(&(*heads[uh])(i, 0), n, rescaled[uh]) : nullptr;
        mass[uh] = p[uh] != nullptr;
        if (mass[uh]) lp[uh] = plogpRow(p[uh], n);
      }
      local.addRow(p, lp, mass, n);
    }
#pragma omp critical(attn_head_similarity)
    total.merge(local);
  }
  return total.matrix(unit);
}

Mat headSimilarityMatrix(const std::vector<Mat>& heads, EntropyUnit unit, const DivergenceOptions& options,
                         DivergenceInfo* info) {
  std::vector<const Mat*> p;
  for (const Mat& m : heads) p.push_back(&m);
  return headSimilarityMatrix(p, unit, options, info);
}

std::vector<int> similarityOrder(const Mat& divergence) {
  const auto n = static_cast<size_t>(divergence.rows());
  std::vector<std::vector<int>> clusters(n);
  for (size_t i = 0; i < n; ++i) clusters[i] = {static_cast<int>(i)};
  // Average-linkage distances between live clusters (Lance-Williams update).
  Eigen::MatrixXd dist = divergence.cast<double>();
  std::vector<bool> live(n, true);
  for (size_t merges = 0; merges + 1 < n; ++merges) {
    size_t ba = 0, bb = 0;
    double best = std::numeric_limits<double>::infinity();
    for (size_t a = 0; a < n; ++a) {
      if (!live[a]) continue;
      for (size_t b = a + 1; b < n; ++b)
        if (live[b] && dist(a, b) < best) {
          best = dist(a, b);
          ba = a;
          bb = b;
        }
    }
    const double na = static_cast<double>(clusters[ba].size()), nb = static_cast<double>(clusters[bb].size());
    for (size_t c = 0; c < n; ++c)
      if (live[c] && c != ba && c != bb) dist(ba, c) = dist(c, ba) = (na * dist(ba, c) + nb * dist(bb, c)) / (na + nb);
    clusters[ba].insert(clusters[ba].end(), clusters[bb].begin(), clusters[bb].end());
    clusters[bb].clear();
    live[bb] = false;
  }
  return n == 0 ? std::vector<int>{} : clusters[0];
}

}  // namespace attn
