#include "attn/analysis/coverage_search.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <limits>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace attn {
namespace coverage {
namespace {

using Packet = Eigen::internal::packet_traits<float>::type;
constexpr int kLanes = Eigen::internal::packet_traits<float>::size;

}  // namespace

MassCount massAtLeastExact(const float* p, int n, float v, float below, float* bracket, int* bracketCount) {
  MassCount r;
  int j = 0, kept = 0;
#if defined(__AVX512F__)
  const __m512 pv = _mm512_set1_ps(v), pb = _mm512_set1_ps(below);
  __m512d a0 = _mm512_setzero_pd(), a1 = _mm512_setzero_pd();
  for (; j + 16 <= n; j += 16) {
    const __m512 x = _mm512_loadu_ps(p + j);
    const __mmask16 m = _mm512_cmp_ps_mask(x, pv, _CMP_GE_OQ);
    if (bracket) {  // the lanes in [below, v), compressed and stored without a branch
      const __mmask16 b = _mm512_mask_cmp_ps_mask(static_cast<__mmask16>(~m), x, pb, _CMP_GE_OQ);
      _mm512_storeu_ps(bracket + kept, _mm512_maskz_compress_ps(b, x));
      kept += std::popcount(static_cast<unsigned>(b));
    }
    const __m512 y = _mm512_maskz_mov_ps(m, x);
    a0 = _mm512_add_pd(a0, _mm512_cvtps_pd(_mm512_castps512_ps256(y)));
    a1 = _mm512_add_pd(a1, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(y), 1))));
    r.count += std::popcount(static_cast<unsigned>(m));
  }
  r.sum = _mm512_reduce_add_pd(_mm512_add_pd(a0, a1));
#elif defined(__AVX2__)
  const __m256 pv = _mm256_set1_ps(v);
  __m256d a0 = _mm256_setzero_pd(), a1 = _mm256_setzero_pd();
  for (; j + 8 <= n; j += 8) {
    const __m256 x = _mm256_loadu_ps(p + j);
    const __m256 m = _mm256_cmp_ps(x, pv, _CMP_GE_OQ);
    if (bracket) {
      unsigned b = static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(x, _mm256_set1_ps(below), _CMP_GE_OQ))) &
                   ~static_cast<unsigned>(_mm256_movemask_ps(m));
      for (; b != 0; b &= b - 1) bracket[kept++] = p[j + std::countr_zero(b)];
    }
    const __m256 y = _mm256_and_ps(m, x);
    a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(y)));
    a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(y, 1)));
    r.count += std::popcount(static_cast<unsigned>(_mm256_movemask_ps(m)));
  }
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, _mm256_add_pd(a0, a1));
  r.sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
#endif
  double s[4] = {};
  for (; j < n; ++j)
    if (p[j] >= v) {
      s[j % 4] += p[j];
      ++r.count;
    } else if (bracket && p[j] >= below) {
      bracket[kept++] = p[j];
    }
  r.sum += (s[0] + s[1]) + (s[2] + s[3]);
  if (bracketCount) *bracketCount = kept;
  return r;
}

size_t countToCover(std::vector<float>& positive, double need) {
  // Weighted quickselect (expected O(n); a full sort per row would dominate the
  // analysis): take whole blocks of larger entries while they fall short.
  size_t taken = 0;
  auto lo = positive.begin(), hi = positive.end();
  while (need > 0.0 && lo != hi) {
    const float pivot = *(lo + (hi - lo) / 2);
    const auto mid = std::partition(lo, hi, [pivot](float x) { return x > pivot; });
    double above = 0.0;
    for (auto it = lo; it != mid; ++it) above += *it;
    if (above >= need) {  // the answer lies among the larger entries
      hi = mid;
      continue;
    }
    need -= above;
    taken += static_cast<size_t>(mid - lo);
    const auto eqEnd = std::partition(mid, hi, [pivot](float x) { return x == pivot; });
    for (auto it = mid; it != eqEnd && need > 0.0; ++it) {
      need -= pivot;
      ++taken;
    }
    lo = eqEnd;
  }
  return taken;
}

namespace {

// The same in float for K thresholds v[0..K) at once (a bisection step: only
// decides which part to keep; the result is confirmed with massAtLeastExact).
template <int K>
inline void massAtLeastFast(const float* p, int n, const float (&v)[K], float (&sum)[K], int (&count)[K]) {
  using namespace Eigen::internal;
  Packet pv[K], s0[K], s1[K];
  int c[K];
  for (int t = 0; t < K; ++t) {
    pv[t] = pset1<Packet>(v[t]);
    s0[t] = s1[t] = pzero(pv[t]);
    c[t] = 0;
  }
  int j = 0;
#if defined(EIGEN_VECTORIZE_AVX512)
  // The compare's mask register selects and a popcount counts: two vector
  // operations per packet instead of five (the same sums, lane by lane).
  for (; j + 2 * kLanes <= n; j += 2 * kLanes) {
    const __m512 x0 = _mm512_loadu_ps(p + j), x1 = _mm512_loadu_ps(p + j + kLanes);
    for (int t = 0; t < K; ++t) {
      const __mmask16 m0 = _mm512_cmp_ps_mask(x0, pv[t], _CMP_GE_OQ), m1 = _mm512_cmp_ps_mask(x1, pv[t], _CMP_GE_OQ);
      s0[t] = _mm512_mask_add_ps(s0[t], m0, s0[t], x0);
      s1[t] = _mm512_mask_add_ps(s1[t], m1, s1[t], x1);
      c[t] += std::popcount(static_cast<unsigned>(m0) | (static_cast<unsigned>(m1) << 16));
    }
  }
#else
  const Packet one = pset1<Packet>(1.0f);
  Packet c0[K], c1[K];
  for (int t = 0; t < K; ++t) c0[t] = c1[t] = pzero(one);
  for (; j + 2 * kLanes <= n; j += 2 * kLanes) {
    const Packet x0 = ploadu<Packet>(p + j), x1 = ploadu<Packet>(p + j + kLanes);
    for (int t = 0; t < K; ++t) {
      const Packet m0 = pcmp_le(pv[t], x0), m1 = pcmp_le(pv[t], x1);
      s0[t] = padd(s0[t], pand(m0, x0));
      s1[t] = padd(s1[t], pand(m1, x1));
      c0[t] = padd(c0[t], pand(m0, one));
      c1[t] = padd(c1[t], pand(m1, one));
    }
  }
  for (int t = 0; t < K; ++t) c[t] = static_cast<int>(predux(padd(c0[t], c1[t])));
#endif
  for (int t = 0; t < K; ++t) {
    float ts = 0.0f;
    int tc = 0;
    for (int k = j; k < n; ++k)
      if (p[k] >= v[t]) {
        ts += p[k];
        ++tc;
      }
    sum[t] = predux(padd(s0[t], s1[t])) + ts;
    count[t] = c[t] + tc;
  }
}

// The fallback when float rounding misled the bisection (never seen outside
// adversarial rows): the weighted selection on a copy of the positive entries.
size_t coverageBySelection(const float* p, int n, double need, std::vector<float>& row) {
  row.clear();
  for (int j = 0; j < n; ++j)
    if (p[j] > 0.0f) row.push_back(p[j]);
  return countToCover(row, need);
}

constexpr int kListAt = 256;  // a bracket this small is listed and searched in the list
constexpr int kSortAt = 8;    // list entries ordered directly
constexpr int kProbes = 8;    // thresholds per pass over a list
// The warm start's bracket: the last cut -+ this share of it, adapted row by
// row (wider after a miss, slowly narrower after a hit).
constexpr float kWarmNarrowest = 1.0f / 64;

}  // namespace

MaxMinCount maxMinPositive(const float* p, int n) {
  using namespace Eigen::internal;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const Packet zero = pset1<Packet>(0.0f), inf = pset1<Packet>(kInf), one = pset1<Packet>(1.0f);
  Packet vmax = pset1<Packet>(-kInf), vmin = inf, cnt = zero;
  int j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    const Packet x = ploadu<Packet>(p + j);
    const Packet pos = pcmp_lt(zero, x);
    vmax = pmax(vmax, x);
    vmin = pmin(vmin, pselect(pos, x, inf));
    cnt = padd(cnt, pand(pos, one));
  }
  MaxMinCount r{predux_max(vmax), predux_min(vmin), static_cast<int>(predux(cnt))};
  for (; j < n; ++j) {
    r.max = std::max(r.max, p[j]);
    if (p[j] > 0.0f) {
      r.minPositive = std::min(r.minPositive, p[j]);
      ++r.positive;
    }
  }
  return r;
}

namespace {

// Double sums and counts of the list's entries >= v[t] (v ascending).
void probeList(const float* x, int m, const float (&v)[kProbes], double (&sum)[kProbes], int (&count)[kProbes]) {
#if defined(__AVX512F__)
  __m512d lo[kProbes], hi[kProbes];
  __m512 pv[kProbes];
  for (int t = 0; t < kProbes; ++t) {
    lo[t] = hi[t] = _mm512_setzero_pd();
    pv[t] = _mm512_set1_ps(v[t]);
    count[t] = 0;
  }
  for (int j = 0; j < m; j += 16) {
    const __mmask16 in = m - j >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << (m - j)) - 1);
    const __m512 e = _mm512_maskz_loadu_ps(in, x + j);
    const __m512d eLo = _mm512_cvtps_pd(_mm512_castps512_ps256(e));
    const __m512d eHi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(e), 1)));
    for (int t = 0; t < kProbes; ++t) {
      const __mmask16 ge = _mm512_mask_cmp_ps_mask(in, e, pv[t], _CMP_GE_OQ);
      lo[t] = _mm512_mask_add_pd(lo[t], static_cast<__mmask8>(ge), lo[t], eLo);
      hi[t] = _mm512_mask_add_pd(hi[t], static_cast<__mmask8>(ge >> 8), hi[t], eHi);
      count[t] += std::popcount(static_cast<unsigned>(ge));
    }
  }
  for (int t = 0; t < kProbes; ++t) sum[t] = _mm512_reduce_add_pd(_mm512_add_pd(lo[t], hi[t]));
#else
  // Each entry into the bucket between two thresholds, then sums from the top.
  double bs[kProbes + 1] = {};
  int bc[kProbes + 1] = {};
  for (int j = 0; j < m; ++j) {
    int b = 0;
    for (int t = 0; t < kProbes; ++t) b += x[j] >= v[t];
    bs[b] += x[j];
    ++bc[b];
  }
  double s = 0;
  int c = 0;
  for (int t = kProbes - 1; t >= 0; --t) {
    s += bs[t + 1];
    c += bc[t + 1];
    sum[t] = s;
    count[t] = c;
  }
#endif
}

// Keeps the list's entries in [lo, hi), in order; returns how many. The list
// has room for 16 floats past its end.
int keepBetween(float* x, int m, float lo, float hi) {
  int kept = 0, j = 0;
#if defined(__AVX512F__)
  const __m512 plo = _mm512_set1_ps(lo), phi = _mm512_set1_ps(hi);
  for (; j < m; j += 16) {  // writes land at or before the packet just read
    const __mmask16 in = m - j >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << (m - j)) - 1);
    const __m512 e = _mm512_maskz_loadu_ps(in, x + j);
    const __mmask16 k = _mm512_mask_cmp_ps_mask(_mm512_mask_cmp_ps_mask(in, e, plo, _CMP_GE_OQ), e, phi, _CMP_LT_OQ);
    _mm512_storeu_ps(x + kept, _mm512_maskz_compress_ps(k, e));
    kept += std::popcount(static_cast<unsigned>(k));
  }
#else
  for (; j < m; ++j)
    if (x[j] >= lo && x[j] < hi) x[kept++] = x[j];
#endif
  return kept;
}

// The greedy inside a list: its m entries (all in [lo, hi), as bit patterns)
// taken largest first until `rest` (> 0) is covered. Passes of kProbes
// thresholds, evenly spaced over the bit patterns (the first at lo: the whole
// list's sum), narrow [lo, hi) to the part holding the last entry taken; the
// entries above it are all taken. Returns how many entries, and the last one in
// *cut, or -1 when the whole list falls short of rest.
long greedyInList(float* x, int m, uint32_t lo, uint32_t hi, double rest, float* cut) {
  long taken = 0;
  while (m > kSortAt && hi - lo > 1) {
    float v[kProbes];
    uint32_t at[kProbes];
    for (int t = 0; t < kProbes; ++t) {
      at[t] = lo + static_cast<uint32_t>(static_cast<uint64_t>(hi - lo) * t / kProbes);
      v[t] = std::bit_cast<float>(at[t]);
    }
    double sum[kProbes];
    int count[kProbes];
    probeList(x, m, v, sum, count);
    if (!(sum[0] >= rest)) return -1;
    int t = 0;  // the last probe whose entries cover rest: the last entry taken lies in [at[t], at[t + 1])
    while (t + 1 < kProbes && sum[t + 1] >= rest) ++t;
    if (t + 1 < kProbes) {
      rest -= sum[t + 1];
      taken += count[t + 1];
      hi = at[t + 1];
    }
    lo = at[t];
    m = keepBetween(x, m, std::bit_cast<float>(lo), std::bit_cast<float>(hi));
  }
  if (hi - lo > 1) std::sort(x, x + m, std::greater<float>());  // else all equal
  for (int j = 0; j < m; ++j) {
    if (!(rest > 0.0)) break;
    rest -= x[j];
    *cut = x[j];
    ++taken;
  }
  return rest > 0.0 ? -1 : taken;
}

}  // namespace

float coverageKFrom(const float* p, int n, double level, FusedRowScratch& sc, float mx, float minPositive,
                    const MassCount& all) {
  level = std::clamp(level, 1e-6, 1.0);
  if (n <= 0) return 0.0f;
  if (!(mx > 0.0f) || !(mx <= std::numeric_limits<float>::max())) return 0.0f;
  if (!(all.sum > 0.0)) return 0.0f;
  // As rowCoverageK: relative slack so that a uniform row of n keys at level
  // 0.9 gives ceil(0.9 n) despite fp32 rounding of 1/n.
  const double need = level * all.sum * (1.0 - 1e-6);
  auto& list = sc.crossing;
  if (list.size() < static_cast<size_t>(n) + 16) list.resize(static_cast<size_t>(n) + 16);
  // One exact pass over the row: the entries >= hi summed, those in [lo, hi)
  // listed; the greedy then goes on in the list. -1: the cut is not in [lo, hi).
  float cut = 0.0f;
  auto finishIn = [&](uint32_t lo, uint32_t hi, MassCount& above, int& listed) -> long {
    above = massAtLeastExact(p, n, std::bit_cast<float>(hi), std::bit_cast<float>(lo), list.data(), &listed);
    const double rest = need - above.sum;
    if (!(rest > 0.0)) return -1;
    const long inList = greedyInList(list.data(), listed, lo, hi, rest, &cut);
    return inList < 0 ? -1 : above.count + inList;
  };
  // The bit patterns of positive floats are ordered like the values: the
  // entries >= lo cover the need (all of them do), those >= hi do not.
  // Starting at the smallest positive entry saves steps through empty ranges.
  const uint32_t first = std::bit_cast<uint32_t>(minPositive);
  uint32_t lo = first, hi = std::bit_cast<uint32_t>(mx) + 1;
  int countLo = all.count, countHi = 0;
  // Warm start: neighbouring rows of a head cut at nearly the same value, so
  // one exact pass over a bracket around the last row's cut usually settles it.
  if (sc.lastCut > 0.0f) {
    const float w = sc.warmWidth;
    const uint32_t g0 = std::max(lo, std::bit_cast<uint32_t>(sc.lastCut * (1.0f - w)));
    const uint32_t g1 = std::min(hi, std::bit_cast<uint32_t>(sc.lastCut * (1.0f + w)));
    if (g0 < g1) {
      MassCount above;
      int listed = 0;
      if (const long k = finishIn(g0, g1, above, listed); k >= 0) {
        sc.lastCut = cut;
        sc.warmWidth = std::max(kWarmNarrowest, w * (31.0f / 32));
        return static_cast<float>(k);
      }
      if (need - above.sum > 0.0) {  // the cut is below g0 (else at or above g1)
        hi = g0;
        countHi = above.count + listed;
      } else {
        lo = g1;
        countLo = above.count;
      }
    }
    sc.warmWidth = std::min(1.0f, 2 * w);
  }
  // Passes in float, 4 thresholds each, narrow the bracket to kListAt entries.
  while (hi - lo > 1 && countLo - countHi > kListAt) {
    constexpr int kSplit = 4;
    float v[kSplit], s[kSplit];
    uint32_t at[kSplit];
    int c[kSplit];
    for (int t = 0; t < kSplit; ++t) {
      at[t] = lo + static_cast<uint32_t>(static_cast<uint64_t>(hi - lo) * (t + 1) / (kSplit + 1));
      v[t] = std::bit_cast<float>(at[t]);
    }
    massAtLeastFast<kSplit>(p, n, v, s, c);
    for (int t = 0; t < kSplit; ++t) {
      if (static_cast<double>(s[t]) >= need) {
        lo = at[t];
        countLo = c[t];
      } else {
        hi = at[t];
        countHi = c[t];
        break;
      }
    }
  }
  MassCount above;
  int listed = 0;
  const long k = finishIn(lo, hi, above, listed);
  if (k < 0)  // float rounding misled the narrowing
    return static_cast<float>(coverageBySelection(p, n, need, list));
  sc.lastCut = cut;
  return static_cast<float>(k);
}

}  // namespace coverage

float coverageKOfRow(const float* p, int n, double level, FusedRowScratch& sc) {
  using namespace coverage;
  if (n <= 0) return 0.0f;
  const MaxMinCount mm = maxMinPositive(p, n);
  constexpr float kTiny = std::numeric_limits<float>::denorm_min();
  return coverageKFrom(p, n, level, sc, mm.max, mm.minPositive, massAtLeastExact(p, n, kTiny));
}

}  // namespace attn
