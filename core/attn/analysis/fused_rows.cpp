#include "attn/analysis/fused_rows.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>

namespace attn {
namespace {

using Packet = Eigen::internal::packet_traits<float>::type;
constexpr int kLanes = Eigen::internal::packet_traits<float>::size;

// Positive finite floats by their top 12 bits (exponent + 3 mantissa bits):
// buckets 12% wide, ordered like the values.
constexpr int kBucketShift = 20;
constexpr int kBuckets = 1 << (31 - kBucketShift);

inline int bucketOf(float x) { return static_cast<int>(std::bit_cast<uint32_t>(x) >> kBucketShift); }

// x log x where x > 0, else 0 (the 0 log 0 = 0 convention; masks the NaN of 0 * -inf).
inline Packet plogpPacket(const Packet& x) {
  using namespace Eigen::internal;
  return pand(pmul(x, plog(x)), pcmp_lt(pzero(x), x));
}

// 1/2 (a log a + b log b) - m log m for one packet, m = (a + b) / 2; 0 where
// m = 0. m log m goes through plogpPacket as the rows' own terms did (its
// mask keeps the compiler from fusing it into the subtraction), so identical
// rows give exactly 0.
inline Packet jsTerm(const Packet& a, const Packet& b, const Packet& la, const Packet& lb) {
  using namespace Eigen::internal;
  const Packet half = pset1<Packet>(0.5f);
  const Packet m = pmul(half, padd(a, b));
  return psub(pmul(half, padd(la, lb)), plogpPacket(m));
}

// Copies the last n < kLanes entries into a zero-padded packet.
inline Packet loadTail(const float* p, int n) {
  alignas(64) float buf[kLanes] = {};
  std::copy(p, p + n, buf);
  return Eigen::internal::pload<Packet>(buf);
}

}  // namespace

double plogpRow(const float* p, int n, float* plogp) {
  using namespace Eigen::internal;
  double total = 0;
  int j = 0;
  // Float partial sums over 256 cells, accumulated in double.
  while (j + kLanes <= n) {
    Packet acc = pzero(Packet{});
    const int end = std::min(n - n % kLanes, j + 256);
    for (; j < end; j += kLanes) {
      const Packet t = plogpPacket(ploadu<Packet>(p + j));
      pstoreu(plogp + j, t);
      acc = padd(acc, t);
    }
    total += predux(acc);
  }
  if (j < n) {
    alignas(64) float out[kLanes];
    pstore(out, plogpPacket(loadTail(p + j, n - j)));
    for (int k = 0; k < n - j; ++k) {
      plogp[j + k] = out[k];
      total += out[k];
    }
  }
  return total;
}

double jsRowFromPlogp(const float* a, const float* b, const float* la, const float* lb, int n) {
  using namespace Eigen::internal;
  double total = 0;
  int j = 0;
  while (j + kLanes <= n) {
    Packet acc = pzero(Packet{});
    const int end = std::min(n - n % kLanes, j + 256);
    for (; j < end; j += kLanes)
      acc = padd(acc, jsTerm(ploadu<Packet>(a + j), ploadu<Packet>(b + j), ploadu<Packet>(la + j),
                             ploadu<Packet>(lb + j)));
    total += predux(acc);
  }
  if (j < n) {
    const int r = n - j;
    total += predux(jsTerm(loadTail(a + j, r), loadTail(b + j, r), loadTail(la + j, r), loadTail(lb + j, r)));
  }
  return total;
}

namespace {

// The greedy (largest first) inside the crossing bucket: k taken so far plus
// the bucket's entries, in descending order, until the need is met.
size_t finishInBucket(const float* p, int n, int bucket, int window, int top, double need, size_t taken,
                      std::vector<float>& crossing) {
  crossing.clear();
  for (int j = 0; j < n; ++j)
    if (p[j] > 0.0f && std::min(top - bucketOf(p[j]), window - 1) == bucket) crossing.push_back(p[j]);
  std::sort(crossing.begin(), crossing.end(), std::greater<float>());
  for (float x : crossing) {
    if (!(need > 0.0)) break;
    need -= x;
    ++taken;
  }
  return taken;
}

// Histogram over buckets top - bucketOf(x), the last one lumping every
// smaller entry; four interleaved copies so that neighbouring cells in one
// bucket do not wait on each other's stores.
constexpr int kLanesHist = 4;

}  // namespace

float coverageKOfRow(const float* p, int n, double level, FusedRowScratch& sc) {
  level = std::clamp(level, 1e-6, 1.0);
  if (n <= 0) return 0.0f;
  const Eigen::Map<const Eigen::ArrayXf> row(p, n);
  const float mx = row.maxCoeff();
  if (!(mx > 0.0f) || !(mx <= std::numeric_limits<float>::max())) return 0.0f;
  // Buckets are 12% wide: a window of 256 spans a factor 4e12 below the max.
  int window = 256;
  for (int pass = 0; pass < 2; ++pass, window = kBuckets) {
    const int top = bucketOf(mx);
    const size_t cells = static_cast<size_t>(kLanesHist) * static_cast<size_t>(window);
    if (sc.bucketSum.size() < cells) {
      sc.bucketSum.assign(cells, 0.0);
      sc.bucketCount.assign(cells, 0);
    } else {
      std::fill_n(sc.bucketSum.begin(), cells, 0.0);
      std::fill_n(sc.bucketCount.begin(), cells, 0);
    }
    double lane[kLanesHist] = {};  // four sums: no chain of dependent adds
    for (int j = 0; j < n; ++j) {
      const float x = p[j];
      if (!(x > 0.0f)) continue;
      const int b = std::min(top - bucketOf(x), window - 1);
      const size_t k = static_cast<size_t>(j % kLanesHist) * static_cast<size_t>(window) + static_cast<size_t>(b);
      sc.bucketSum[k] += x;
      ++sc.bucketCount[k];
      lane[j % kLanesHist] += x;
    }
    const double total = (lane[0] + lane[1]) + (lane[2] + lane[3]);
    if (total <= 0.0) return 0.0f;
    // As rowCoverageK: relative slack so that a uniform row of n keys at level
    // 0.9 gives ceil(0.9 n) despite fp32 rounding of 1/n.
    double need = level * total * (1.0 - 1e-6);
    size_t taken = 0;
    for (int b = 0; b < window; ++b) {
      double sum = 0;
      int count = 0;
      for (int l = 0; l < kLanesHist; ++l) {
        sum += sc.bucketSum[static_cast<size_t>(l * window + b)];
        count += sc.bucketCount[static_cast<size_t>(l * window + b)];
      }
      if (count == 0) continue;
      if (sum >= need) {
        if (b == window - 1 && window < kBuckets) break;  // crossing among the lumped entries: full histogram
        return static_cast<float>(finishInBucket(p, n, b, window, top, need, taken, sc.crossing));
      }
      need -= sum;
      taken += static_cast<size_t>(count);
    }
    if (window == kBuckets) return static_cast<float>(taken);  // rounding left need > 0: every entry
  }
  return 0.0f;
}

FusedRow measureRow(const float* p, int n, int i, const bool* keep, double coverageLevel, FusedRowScratch& sc,
                    float* plogp, RowTimes* times) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point last = times ? Clock::now() : Clock::time_point{};
  auto lap = [&](double RowTimes::*field) {
    if (!times) return;
    const auto now = Clock::now();
    times->*field += std::chrono::duration<double>(now - last).count();
    last = now;
  };
  FusedRow r;
  if (n <= 0) return r;
  if (!plogp) {
    if (sc.plogp.size() < static_cast<size_t>(n)) sc.plogp.resize(static_cast<size_t>(n));
    plogp = sc.plogp.data();
  }
  r.plogp = plogpRow(p, n, plogp);
  lap(&RowTimes::entropy);
  const Eigen::Map<const Eigen::ArrayXf> row(p, n);
  const float mx = row.maxCoeff();
  r.maxWeight = std::max(0.0f, mx);
  r.hasMass = mx > 0.0f;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  float lo, hi;
  if (keep) {
    const Eigen::Map<const Eigen::Array<bool, Eigen::Dynamic, 1>> k(keep, n);
    r.kept = static_cast<int>(k.count());
    lo = k.select(row, kInf).minCoeff();
    hi = k.select(row, -kInf).maxCoeff();
  } else {
    r.kept = static_cast<int>((row > 0.0f).count());
    lo = (row > 0.0f).select(row, kInf).minCoeff();
    hi = mx;
  }
  if (r.kept > 0 && hi >= lo) {
    r.maxMinGap = hi - lo;
    if (hi > 0.0f)
      r.maxMinRatio = static_cast<float>(static_cast<double>(hi) / std::max(static_cast<double>(lo), 1e-9));
  }
  lap(&RowTimes::maxMin);
  if (!r.hasMass) return r;
  if (sc.keyIndex.size() < n) sc.keyIndex = Eigen::ArrayXd::LinSpaced(n, 0.0, static_cast<double>(n - 1));
  r.meanDistance = static_cast<float>(
      (row.cast<double>() * (sc.keyIndex.head(n) - static_cast<double>(i)).abs()).sum());
  lap(&RowTimes::distance);
  r.coverageK = coverageKOfRow(p, n, coverageLevel, sc);
  lap(&RowTimes::coverage);
  return r;
}

}  // namespace attn
