#include "attn/analysis/fused_rows.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "attn/analysis/coverage_search.h"

namespace attn {
namespace {

using Packet = Eigen::internal::packet_traits<float>::type;
constexpr int kLanes = Eigen::internal::packet_traits<float>::size;

// Sums of x log x are taken in base 2 and turned into nats once per sum
// (kLn2 below): log2 x = e + log2 m needs no multiply of the exponent by
// ln 2 per cell (split in two parts for accuracy, two multiply-adds), a sixth
// of the head divergence's vector operations.
constexpr double kLn2 = 0.6931471805599453;
constexpr float kInvLn2 = 1.4426950408889634f;

#if defined(EIGEN_VECTORIZE_AVX512)
// log2 x for positive floats (other lanes are masked out by the callers),
// without a division: x = 2^e m, m in [1, 2) (getexp, getmant), m = c (1 + r)
// with c the centre of m's 1/32-wide interval (its top five mantissa bits
// pick 1/c and -log2(1/c) from two 32-entry tables held in registers),
// |r| < 1/64, log2(1 + r) to r^3 (truncation below 1e-8, under the float
// rounding of the result). The head divergence is one log per cell and pair
// of heads.
struct LogTables {
  alignas(64) float invC[32];
  alignas(64) float minusLog2InvC[32];
  LogTables() {
    for (int k = 0; k < 32; ++k) {
      const double c = 1.0 + (k + 0.5) / 32.0;
      invC[k] = static_cast<float>(1.0 / c);
      minusLog2InvC[k] = static_cast<float>(-std::log2(static_cast<double>(invC[k])));
    }
  }
};
const LogTables kLogTables;

inline __m512 log2Positive(__m512 x) {
  const __m512 e = _mm512_getexp_ps(x);
  const __m512 m = _mm512_getmant_ps(x, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);
  // m's top five mantissa bits (m's, not x's: right for subnormal x too); the
  // permutes read the index's low 5 bits.
  const __m512i idx = _mm512_srli_epi32(_mm512_castps_si512(m), 18);
  const __m512 invC = _mm512_permutex2var_ps(_mm512_load_ps(kLogTables.invC), idx, _mm512_load_ps(kLogTables.invC + 16));
  const __m512 log2C = _mm512_permutex2var_ps(_mm512_load_ps(kLogTables.minusLog2InvC), idx,
                                              _mm512_load_ps(kLogTables.minusLog2InvC + 16));
  const __m512 r = _mm512_fmsub_ps(m, invC, _mm512_set1_ps(1.0f));  // m / c - 1 (1/c rounded: log2C matches it)
  // log2(1 + r) = (r - r^2/2 + r^3/3) / ln 2, Horner from r^3.
  __m512 poly = _mm512_fmadd_ps(r, _mm512_set1_ps(kInvLn2 / 3), _mm512_set1_ps(-kInvLn2 / 2));
  poly = _mm512_fmadd_ps(poly, r, _mm512_set1_ps(kInvLn2));
  return _mm512_fmadd_ps(poly, r, _mm512_add_ps(e, log2C));
}
#elif defined(EIGEN_VECTORIZE_SSE2) || defined(EIGEN_VECTORIZE_NEON)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"  // __m512 as a template argument
using PacketI = Eigen::internal::unpacket_traits<Packet>::integer_packet;
#pragma GCC diagnostic pop

// log2 x for positive normal floats (what the callers keep; other lanes are
// masked out by them): x = 2^e m, m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s),
// s = (m - 1) / (m + 1), |s| < 0.172, odd series to s^9 (its coefficients
// divided by ln 2). Eigen's plog also handles zero, negatives, infinity and
// denormals, which the masks make unnecessary, in about twice the time.
inline Packet log2Positive(const Packet& x) {
  using namespace Eigen::internal;
  const PacketI off = pset1<PacketI>(0x3f3504f3);  // bits of sqrt(1/2)
  const PacketI i = psub(preinterpret<PacketI>(x), off);
  const PacketI e = parithmetic_shift_right<23>(i);
  const Packet m = preinterpret<Packet>(padd(pand(i, pset1<PacketI>(0x007fffff)), off));
  const Packet one = pset1<Packet>(1.0f);
  const Packet s = pdiv(psub(m, one), padd(m, one));
  const Packet z = pmul(s, s);
  Packet p = pset1<Packet>(2.0f / 9 * kInvLn2);
  p = pmadd(p, z, pset1<Packet>(2.0f / 7 * kInvLn2));
  p = pmadd(p, z, pset1<Packet>(2.0f / 5 * kInvLn2));
  p = pmadd(p, z, pset1<Packet>(2.0f / 3 * kInvLn2));
  p = pmadd(p, z, pset1<Packet>(2.0f * kInvLn2));
  return pmadd(p, s, pcast<PacketI, Packet>(e));
}
#else
inline Packet log2Positive(const Packet& x) {
  return Eigen::internal::pmul(Eigen::internal::plog(x), Eigen::internal::pset1<Packet>(kInvLn2));
}
#endif

// x log2 x where x > 0, else 0 (the 0 log 0 = 0 convention); with AVX-512 the
// zeroing is the multiply's own mask (no separate blend).
inline Packet plog2pPacket(const Packet& x) {
#if defined(EIGEN_VECTORIZE_AVX512)
  return _mm512_maskz_mul_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ), x, log2Positive(x));
#else
  using namespace Eigen::internal;
  return pand(pmul(x, log2Positive(x)), pcmp_lt(pzero(x), x));
#endif
}

// acc + (x log2 x where x > 0, else 0); the term in nats (x log x) is stored
// to out when not null. With AVX-512 one masked multiply-add (lanes with
// x <= 0 keep acc) instead of a masked multiply and an add.
inline Packet addPlogp(const Packet& acc, const Packet& x, float* out) {
#if defined(EIGEN_VECTORIZE_AVX512)
  const __mmask16 pos = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ);
  const __m512 lg = log2Positive(x);
  if (out) _mm512_storeu_ps(out, _mm512_mul_ps(_mm512_maskz_mul_ps(pos, x, lg), _mm512_set1_ps(static_cast<float>(kLn2))));
  return _mm512_mask3_fmadd_ps(x, lg, acc, pos);
#else
  using namespace Eigen::internal;
  const Packet t = plog2pPacket(x);
  if (out) pstoreu(out, pmul(t, pset1<Packet>(static_cast<float>(kLn2))));
  return padd(acc, t);
#endif
}

// Copies the last n < kLanes entries into a zero-padded packet.
inline Packet loadTail(const float* p, int n) {
  alignas(64) float buf[kLanes] = {};
  std::copy(p, p + n, buf);
  return Eigen::internal::pload<Packet>(buf);
}

// Cells per float partial sum (summed in double): short enough that the float
// rounding of a partial stays near that of its terms.
constexpr int kBlock = 64;

// Double sums lane by lane of the float partial sums of each block: a block's
// packet is widened and added to per-lane double accumulators, and the lanes
// are summed once at the end (a horizontal sum and a scalar double add per
// block of four packets took about half of the head divergence's time).
struct LaneSums {
#if defined(EIGEN_VECTORIZE_AVX512)
  __m512d lo = _mm512_setzero_pd(), hi = _mm512_setzero_pd();
  void add(__m512 x) {
    lo = _mm512_add_pd(lo, _mm512_cvtps_pd(_mm512_castps512_ps256(x)));
    hi = _mm512_add_pd(hi, _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1))));
  }
  double sum() const {  // (g++ 12 warns inside _mm512_reduce_add_pd here)
    alignas(64) double l[8];
    _mm512_store_pd(l, _mm512_add_pd(lo, hi));
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
  }
#elif defined(EIGEN_VECTORIZE_AVX)
  __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
  void add(__m256 x) {
    lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(x)));
    hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)));
  }
  double sum() const {
    alignas(32) double l[4];
    _mm256_store_pd(l, _mm256_add_pd(lo, hi));
    return (l[0] + l[1]) + (l[2] + l[3]);
  }
#elif defined(EIGEN_VECTORIZE_SSE2)
  __m128d lo = _mm_setzero_pd(), hi = _mm_setzero_pd();
  void add(__m128 x) {
    lo = _mm_add_pd(lo, _mm_cvtps_pd(x));
    hi = _mm_add_pd(hi, _mm_cvtps_pd(_mm_movehl_ps(x, x)));
  }
  double sum() const {
    alignas(16) double l[2];
    _mm_store_pd(l, _mm_add_pd(lo, hi));
    return l[0] + l[1];
  }
#else
  double lanes[kLanes] = {};
  void add(const Packet& x) {
    alignas(64) float t[kLanes];
    Eigen::internal::pstore(t, x);
    for (int k = 0; k < kLanes; ++k) lanes[k] += t[k];
  }
  double sum() const {
    double s = 0;
    for (double l : lanes) s += l;
    return s;
  }
#endif
};

// sum_j x_j log x_j over the cells of `load(j)` (a packet of x at j), and the
// terms into out (may be null). plogpRow and mlogmSum share it, so a row and
// the mean of that row with itself give bit-identical sums (JS exactly 0).
template <class Load>
double plogpSum(Load load, int n, float* out) {
  using namespace Eigen::internal;
  LaneSums lanes;
  int j = 0;
  const int full = n - n % kLanes;
  while (j < full) {
    Packet acc = pzero(Packet{});
    const int end = std::min(full, j + kBlock);
    if (out)
      for (; j < end; j += kLanes) acc = addPlogp(acc, load(j, kLanes), out + j);
    else  // (a loop of its own: no test of out per packet)
      for (; j < end; j += kLanes) acc = addPlogp(acc, load(j, kLanes), nullptr);
    lanes.add(acc);
  }
  double total = lanes.sum();  // (in bits until the end)
  if (j < n) {
    alignas(64) float t[kLanes];
    pstore(t, plog2pPacket(load(j, n - j)));
    for (int k = 0; k < n - j; ++k) {
      if (out) out[j + k] = t[k] * static_cast<float>(kLn2);
      total += t[k];
    }
  }
  return total * kLn2;
}

// Entries [j, j + count) of p as a packet, count <= kLanes (a constant kLanes
// in the loops: the test folds away).
inline Packet loadAt(const float* p, int j, int count) {
  return count == kLanes ? Eigen::internal::ploadu<Packet>(p + j) : loadTail(p + j, count);
}

}  // namespace

double plogpRow(const float* p, int n, float* plogp) {
  return plogpSum([&](int j, int count) { return loadAt(p, j, count); }, n, plogp);
}

double mlogmSum(const float* a, const float* b, int n) {
  using namespace Eigen::internal;
  const Packet half = pset1<Packet>(0.5f);
  return plogpSum([&](int j, int count) { return pmul(half, padd(loadAt(a, j, count), loadAt(b, j, count))); }, n,
                  nullptr);
}

double mlogmSumOfHalves(const float* a, const float* b, int n) {
  using namespace Eigen::internal;
  return plogpSum([&](int j, int count) { return padd(loadAt(a, j, count), loadAt(b, j, count)); }, n, nullptr);
}

double jsRowFromSums(const float* a, const float* b, double plogpA, double plogpB, int n) {
  return 0.5 * (plogpA + plogpB) - mlogmSum(a, b, n);
}


namespace {

// Everything measureRow needs of a row besides the coverage search, from one
// pass: sum p log p (summed exactly as plogpRow sums it), max, smallest
// positive entry and count of positive entries, their double sum (as
// massAtLeastExact sums them) and sum p_j |i - j| in double.
using coverage::MassCount;
using coverage::MaxMinCount;

struct RowPass {
  double plogp = 0, distance = 0;
  MaxMinCount mm{};
  MassCount positive;
};

#if defined(EIGEN_VECTORIZE_AVX512)
RowPass rowPass(const float* p, int n, int i, float* terms) {
  using namespace Eigen::internal;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  RowPass r;
  __m512 vmax = _mm512_set1_ps(-kInf), vmin = _mm512_set1_ps(kInf);
  __m512d s0 = _mm512_setzero_pd(), s1 = s0, d0 = s0, d1 = s0;
  // |j - i| for the low and high eight lanes of the packet at j.
  __m512d jLo = _mm512_sub_pd(_mm512_set_pd(7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_pd(i));
  __m512d jHi = _mm512_add_pd(jLo, _mm512_set1_pd(8));
  const __m512d step = _mm512_set1_pd(16);
  LaneSums lanes;
  int count = 0, j = 0;
  const int full = n - n % 16;
  while (j < full) {
    __m512 acc = _mm512_setzero_ps();
    const int end = std::min(full, j + kBlock);
    for (; j < end; j += 16) {
      const __m512 x = _mm512_loadu_ps(p + j);
      acc = addPlogp(acc, x, terms ? terms + j : nullptr);
      const __mmask16 pos = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ);
      vmax = _mm512_max_ps(vmax, x);
      vmin = _mm512_mask_min_ps(vmin, pos, vmin, x);
      count += std::popcount(static_cast<unsigned>(pos));
      const __m512 y = _mm512_maskz_mov_ps(pos, x);
      const __m512d yLo = _mm512_cvtps_pd(_mm512_castps512_ps256(y));
      const __m512d yHi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(y), 1)));
      s0 = _mm512_add_pd(s0, yLo);
      s1 = _mm512_add_pd(s1, yHi);
      const __m512d xLo = _mm512_cvtps_pd(_mm512_castps512_ps256(x));
      const __m512d xHi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)));
      d0 = _mm512_fmadd_pd(xLo, _mm512_abs_pd(jLo), d0);
      d1 = _mm512_fmadd_pd(xHi, _mm512_abs_pd(jHi), d1);
      jLo = _mm512_add_pd(jLo, step);
      jHi = _mm512_add_pd(jHi, step);
    }
    lanes.add(acc);
  }
  r.plogp = lanes.sum();  // (in bits until the end, summed as plogpSum sums)
  r.mm = {predux_max(vmax), predux_min(vmin), count};
  r.positive.sum = _mm512_reduce_add_pd(_mm512_add_pd(s0, s1));
  r.positive.count = count;
  r.distance = _mm512_reduce_add_pd(_mm512_add_pd(d0, d1));
  if (j < n) {
    alignas(64) float t[16];
    pstore(t, plog2pPacket(loadTail(p + j, n - j)));
    double s[4] = {};
    for (int k = 0; k < n - j; ++k) {
      if (terms) terms[j + k] = t[k] * static_cast<float>(kLn2);
      r.plogp += t[k];
      const float x = p[j + k];
      r.mm.max = std::max(r.mm.max, x);
      r.distance += static_cast<double>(x) * std::abs(static_cast<double>(j + k - i));
      if (x > 0.0f) {
        r.mm.minPositive = std::min(r.mm.minPositive, x);
        ++r.mm.positive;
        ++r.positive.count;
        s[(j + k) % 4] += x;
      }
    }
    r.positive.sum += (s[0] + s[1]) + (s[2] + s[3]);
  }
  r.plogp *= kLn2;
  return r;
}
#else
RowPass rowPass(const float* p, int n, int i, float* terms) {
  RowPass r;
  r.plogp = plogpRow(p, n, terms);
  r.mm = coverage::maxMinPositive(p, n);
  r.positive = coverage::massAtLeastExact(p, n, std::numeric_limits<float>::denorm_min());
  for (int j = 0; j < n; ++j) r.distance += static_cast<double>(p[j]) * std::abs(static_cast<double>(j - i));
  return r;
}
#endif

}  // namespace

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
  // One pass for entropy, max/min/kept, distance and the coverage's totals
  // (profiled as entropy: they are no longer separable).
  const RowPass pass = rowPass(p, n, i, plogp);
  r.plogp = pass.plogp;
  lap(&RowTimes::entropy);
  const Eigen::Map<const Eigen::ArrayXf> row(p, n);
  const MaxMinCount& mm = pass.mm;
  const float mx = mm.max;
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
    r.kept = mm.positive;
    lo = mm.minPositive;
    hi = mx;
  }
  if (r.kept > 0 && hi >= lo) {
    r.maxMinGap = hi - lo;
    if (hi > 0.0f)
      r.maxMinRatio = static_cast<float>(static_cast<double>(hi) / std::max(static_cast<double>(lo), 1e-9));
  }
  lap(&RowTimes::maxMin);
  if (!r.hasMass) return r;
  r.meanDistance = static_cast<float>(pass.distance);
  lap(&RowTimes::distance);
  r.coverageK = coverage::coverageKFrom(p, n, coverageLevel, sc, mx, mm.minPositive, pass.positive);
  lap(&RowTimes::coverage);
  return r;
}

}  // namespace attn
