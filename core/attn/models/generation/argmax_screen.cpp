#include "attn/models/generation/argmax_screen.h"

#if defined(__AVX2__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

#include "attn/models/nn_ops.h"

namespace attn::models {
namespace {

constexpr int64_t kAlign = 64;       // int8 row stride: whole 64-byte vectors, zero padded
constexpr double kUnit = 0x1.0p-24;  // float's unit roundoff

/// Finite by the exponent bits: not folded away whatever the floating-point flags.
bool finite(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return (b & 0x7F800000u) != 0x7F800000u;
}

/// x.q over n (a multiple of 64) int8 entries, in float: the bound's gamma_n covers any order.
float dotInt8(const float* x, const int8_t* q, int64_t n) {
#if defined(__AVX512F__)
  __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps(), a2 = _mm512_setzero_ps(),
         a3 = _mm512_setzero_ps();
  const auto widen = [q](int64_t i) {
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q + i))));
  };
  for (int64_t i = 0; i < n; i += 64) {
    a0 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i), widen(i), a0);
    a1 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i + 16), widen(i + 16), a1);
    a2 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i + 32), widen(i + 32), a2);
    a3 = _mm512_fmadd_ps(_mm512_loadu_ps(x + i + 48), widen(i + 48), a3);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
#elif defined(__AVX2__)
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  const auto widen = [q](int64_t i) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + i))));
  };
  for (int64_t i = 0; i < n; i += 16) {
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i), widen(i), a0);
    a1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + i + 8), widen(i + 8), a1);
  }
  const __m256 a = _mm256_add_ps(a0, a1);
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
#else
  float a = 0.0f;
  for (int64_t i = 0; i < n; ++i) a += x[i] * static_cast<float>(q[i]);
  return a;
#endif
}

struct RowSums {
  float top = 0.0f;     // max |w_i|
  float errSq = 0.0f;   // sum (w_i - s q_i)^2, in float
  float normSq = 0.0f;  // sum w_i^2, in float
};

float maxAbs(const float* w, int64_t n, int64_t& i) {
  float top = 0.0f;
  i = 0;
#if defined(__AVX512F__)
  __m512 m = _mm512_setzero_ps();
  for (; i + 16 <= n; i += 16) m = _mm512_max_ps(m, _mm512_abs_ps(_mm512_loadu_ps(w + i)));
  top = _mm512_reduce_max_ps(m);
#endif
  return top;
}

/// Row r's int8 copy at the scale s = max|w| / 127, and the sums the bound needs; q_i rounded to
/// nearest (any integer would do: the bound uses the error actually made).
RowSums quantizeRow(const float* w, int64_t n, int8_t* q) {
  RowSums out;
  int64_t i = 0;
  out.top = maxAbs(w, n, i);
  for (; i < n; ++i) out.top = std::max(out.top, std::fabs(w[i]));
  if (!finite(out.top) || out.top == 0.0f) return out;  // a zero row: q 0, no error
  const float scale = out.top / 127.0f, inv = 127.0f / out.top;
  i = 0;
#if defined(__AVX512F__)
  __m512 e = _mm512_setzero_ps(), nn = _mm512_setzero_ps();
  const __m512 vs = _mm512_set1_ps(scale), vi = _mm512_set1_ps(inv), lo = _mm512_set1_ps(-127.0f),
               hi = _mm512_set1_ps(127.0f);
  for (; i + 16 <= n; i += 16) {
    const __m512 x = _mm512_loadu_ps(w + i);
    __m512 r = _mm512_roundscale_ps(_mm512_mul_ps(x, vi), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    r = _mm512_min_ps(_mm512_max_ps(r, lo), hi);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + i), _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(r)));
    const __m512 d = _mm512_fnmadd_ps(vs, r, x);
    e = _mm512_fmadd_ps(d, d, e);
    nn = _mm512_fmadd_ps(x, x, nn);
  }
  out.errSq = _mm512_reduce_add_ps(e);
  out.normSq = _mm512_reduce_add_ps(nn);
#endif
  for (; i < n; ++i) {
    const float r = std::clamp(std::nearbyint(w[i] * inv), -127.0f, 127.0f);
    q[i] = static_cast<int8_t>(r);
    const float d = w[i] - scale * r;
    out.errSq += d * d;
    out.normSq += w[i] * w[i];
  }
  return out;
}

}  // namespace

std::unique_ptr<ArgmaxScreen> ArgmaxScreen::build(const WeightTensor& w) {
  if (w.data == nullptr || w.rows <= 0 || w.cols <= 0) return nullptr;
  auto s = std::unique_ptr<ArgmaxScreen>(new ArgmaxScreen);
  s->w_ = w.data;
  s->rows_ = w.rows;
  s->cols_ = w.cols;
  s->stride_ = (w.cols + kAlign - 1) / kAlign * kAlign;
  // Fresh 4 KB pages cost a fault each on first touch (docs/performance.md): 2 MB ones instead.
  s->qStore_ = allocateWeightBuffer((s->rows_ * s->stride_ + 3) / 4);
  if (!s->qStore_) return nullptr;
  s->q_ = reinterpret_cast<int8_t*>(s->qStore_.get());
  s->scale_.resize(static_cast<size_t>(s->rows_));
  s->err_.resize(static_cast<size_t>(s->rows_));
  s->norm_.resize(static_cast<size_t>(s->rows_));
  std::atomic<bool> allFinite{true};
  const int64_t n = s->cols_;
  const int threads = threadsFor(4.0 * static_cast<double>(s->rows_) * static_cast<double>(n));
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (int64_t r = 0; r < s->rows_; ++r) {
    int8_t* q = s->q_ + r * s->stride_;
    std::memset(q, 0, static_cast<size_t>(s->stride_));
    const RowSums sums = quantizeRow(s->w_ + r * n, n, q);
    // A NaN can slip past max (it returns its other operand); the sum of squares keeps it.
    if (!finite(sums.top) || !finite(sums.normSq) || !finite(sums.errSq)) {
      allFinite = false;
      continue;
    }
    // Sums of n squares in float are within n u of the exact (Higham eq. 3.5), and each error
    // term w_i - s q_i within u (|w_i| + |d_i|) of its float: both folded in, generously.
    const double slack = 1.0 + 4.0 * static_cast<double>(n + 16) * kUnit;
    const double norm = std::sqrt(static_cast<double>(sums.normSq)) * slack;
    s->scale_[static_cast<size_t>(r)] = sums.top / 127.0f;
    s->err_[static_cast<size_t>(r)] = std::sqrt(static_cast<double>(sums.errSq)) * slack + 4.0 * kUnit * norm;
    s->norm_[static_cast<size_t>(r)] = norm;
  }
  if (!allFinite) return nullptr;
  return s;
}

int64_t ArgmaxScreen::bytes() const {
  return rows_ * stride_ +
         static_cast<int64_t>(scale_.size() * sizeof(float) + (err_.size() + norm_.size()) * sizeof(double));
}

void ArgmaxScreen::approximate(const float* xPadded, const float* bias, float* out) const {
  const int threads = threadsFor(2.0 * static_cast<double>(rows_) * static_cast<double>(stride_));
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (int64_t r = 0; r < rows_; ++r) {
    const float a = scale_[static_cast<size_t>(r)] * dotInt8(xPadded, q_ + r * stride_, stride_);
    out[r] = bias ? a + bias[r] : a;
  }
}

int ArgmaxScreen::argmax(const float* x, const float* bias, const std::vector<int>& bannedSorted) const {
  // Per-thread scratch: a fresh vocabulary-sized buffer a step would fault its pages in again.
  thread_local std::vector<float> xp, approx;
  xp.assign(static_cast<size_t>(stride_), 0.0f);
  double xx = 0.0;
  for (int64_t i = 0; i < cols_; ++i) {
    if (!finite(x[i])) return -1;
    xp[static_cast<size_t>(i)] = x[i];
    xx += static_cast<double>(x[i]) * x[i];
  }
  const double xnorm = std::sqrt(xx);
  approx.resize(static_cast<size_t>(rows_));
  approximate(xp.data(), bias, approx.data());
  // The bound on |approx_r - exact_r|: the int8 copy's error, then the float rounding of its
  // product (gamma_n with n + 16 for the scale, the bias and the sum's last steps; doubled).
  const double rel = 2.0 * static_cast<double>(cols_ + 16) * kUnit;
  const auto bound = [&](int64_t r) {
    const size_t i = static_cast<size_t>(r);
    const double b = bias ? std::fabs(static_cast<double>(bias[r])) : 0.0;
    return (xnorm * (err_[i] + rel * (norm_[i] + err_[i])) + 4.0 * kUnit * b) * (1.0 + 1e-9);
  };
  double bestLower = -HUGE_VAL;
  auto banned = bannedSorted.begin();
  const auto isBanned = [&](int64_t r) {  // rows are visited in ascending order
    while (banned != bannedSorted.end() && *banned < r) ++banned;
    return banned != bannedSorted.end() && *banned == r;
  };
  for (int64_t r = 0; r < rows_; ++r) {
    if (!finite(approx[static_cast<size_t>(r)])) return -1;
    if (!isBanned(r)) bestLower = std::max(bestLower, approx[static_cast<size_t>(r)] - bound(r));
  }
  banned = bannedSorted.begin();
  int best = -1;
  double bestExact = -HUGE_VAL;
  int64_t candidates = 0;
  for (int64_t r = 0; r < rows_; ++r) {
    if (approx[static_cast<size_t>(r)] + bound(r) < bestLower || isBanned(r)) continue;
    ++candidates;
    const float* row = w_ + r * cols_;
    double e = bias ? static_cast<double>(bias[r]) : 0.0;
    for (int64_t i = 0; i < cols_; ++i) e += static_cast<double>(x[i]) * row[i];
    if (best < 0 || e > bestExact) best = static_cast<int>(r), bestExact = e;
  }
  lastCandidates_.store(candidates, std::memory_order_relaxed);
  return best < 0 ? 0 : best;
}

}  // namespace attn::models
