#include "attn/models/attribution/attribution.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "attn/models/attribution/head_vectors.h"

namespace attn::models {
namespace {

using RowVec = Eigen::RowVectorXf;

RowVec normVector(const WeightTensor& t, int d, float fill) {
  RowVec v = RowVec::Constant(d, fill);
  if (!t.empty()) t.rowTo(0, v.data());
  return v;
}

/// What one layer's attention block sends from every key j to query i:
/// T_i(x_j) = sum_h alpha^h_ij f^h(x_j) + [i = j] x_i (Kobayashi et al. 2021, section 3,
/// Ferrando et al. 2022, section 3). The post-LN families' LayerNorm
/// LN(sum_j T_i(x_j) + b_O) is taken apart as sum_j g_i(T_i(x_j)) + g_i(b_O) + beta with
/// g_i(z) = (z - mean(z)) / s_i * gamma and s_i the standard deviation of the whole sum
/// (Kobayashi et al. 2021, section 3, LN taken apart token by token; Ferrando et al. 2022, section 3).
/// The pre-norm families (GPT-2's ln_1, Llama's RMSNorm) normalize before W_V: that norm
/// is inside f already, and the block's output is the residual stream sum_j T_i(x_j) + b_O.
struct LayerContext {
  const std::vector<Mat>* f = nullptr;  // per head f^h(x_j) [N, d]
  const AttentionResult* attn = nullptr;
  const Mat* x = nullptr;  // the layer's input (the residual)
  const OutputProjection* proj = nullptr;
  bool postNorm = false;
  RowVec gamma, beta;
  double eps = 0;
};

/// The end of `row`'s nonzero part in [lo, hi): its last nonzero index + 1, or lo. Sixteen
/// values at a time by their bits (-0 counts as zero, NaN does not, as with == 0.0f): a causal
/// row's zeros are most of the row.
int nonzeroEnd(const float* row, int lo, int hi) {
  int last = hi;
  while (last - 16 >= lo) {
    uint32_t bits = 0;
#pragma omp simd reduction(| : bits)
    for (int k = 0; k < 16; ++k) {
      uint32_t b;
      std::memcpy(&b, row + last - 16 + k, 4);
      bits |= b & 0x7FFFFFFFu;
    }
    if (bits != 0) break;
    last -= 16;
  }
  while (last > lo && row[last - 1] == 0.0f) --last;
  return last;
}

/// Keys from the returned one on get no weight from any head at query i, and are past i: their
/// T_i(x_j) is zero (a causal row: half the keys on average, and so half the work).
int sendingKeys(const LayerContext& c, int i) {
  const int n = static_cast<int>(c.x->rows());
  int end = i + 1;
  for (const auto& head : c.attn->heads) end = nonzeroEnd(head.weights.row(i).data(), end, n);
  return end;
}

/// Per query, what each key's vector is measured against: y_i = sum_j T_i(x_j) + b_O, for the
/// post-norm families through the LayerNorm (y'_i = g_i(y_i - b_O) + g_i(b_O) + beta), and
/// what takes that LayerNorm apart: g_i(z) = (z - mean(z)) * scale_i, mean(T_i(x_j)) being
/// sum_h alpha^h_ij mean(f^h(x_j)) (+ mean(x_i) at j = i).
struct QueryTargets {
  Mat y;                   // [N, d]
  Eigen::VectorXf yNorm;   // ||y_i||_1
  Mat scale;               // post-norm: [N, d] gamma / s_i
  Mat fMeans;              // post-norm: [H, N] mean over d of f^h(x_j)
  Eigen::VectorXf xMeans;  // post-norm: mean over d of x_i
};

/// y_i before any LayerNorm: the layer input plus the attention block's output, the forward's
/// own W_O product when the run kept it; else summed here from the heads' vectors.
Mat wholeBeforeNorm(const LayerContext& c) {
  const Mat& x = *c.x;
  const Mat& out = c.attn->output;
  if (out.rows() == x.rows() && out.cols() == x.cols()) return x + out;
  Mat y = x;
  y.rowwise() += c.proj->b;
  for (size_t h = 0; h < c.f->size(); ++h) y.noalias() += c.attn->heads[h].weights * (*c.f)[h];
  return y;
}

QueryTargets queryTargets(const LayerContext& c) {
  QueryTargets t;
  t.y = wholeBeforeNorm(c);
  const int n = static_cast<int>(t.y.rows()), d = static_cast<int>(t.y.cols()),
            H = static_cast<int>(c.f->size());
  if (c.postNorm) {
    t.scale.resize(n, d);
    for (int i = 0; i < n; ++i) {
      const double mean = t.y.row(i).cast<double>().mean();
      const double var = (t.y.row(i).cast<double>().array() - mean).square().mean();
      const float inv = static_cast<float>(1.0 / std::sqrt(var + c.eps));
      t.scale.row(i) = c.gamma * inv;
      t.y.row(i) =
          ((t.y.row(i).array() - static_cast<float>(mean)) * inv * c.gamma.array() + c.beta.array()).matrix();
    }
    t.fMeans.resize(H, n);
    for (int h = 0; h < H; ++h) t.fMeans.row(h) = (*c.f)[static_cast<size_t>(h)].rowwise().mean().transpose();
    t.xMeans = c.x->rowwise().mean();
  }
  t.yNorm.resize(n);
  for (int i = 0; i < n; ++i) t.yNorm(i) = t.y.row(i).lpNorm<1>();
  return t;
}

/// Queries measured from one read of each key's f rows.
constexpr int kQueryBlock = 4;
#if !defined(__AVX512F__)
constexpr int kCellLanes = 8;  // one ymm (AVX2): three per query (sum, squares, distances) fit 16
#endif

/// Per thread, for one key: the heads that send it something at a query of the block, their
/// weights at each query ([used][M]), their f rows and (post-norm) those rows' means; at j = i
/// also the residual x_i, as one more row with weight 1 at query i and 0 at the others (a
/// run-time index into the register block would put it in memory).
struct KeyHeads {
  std::vector<float> weights;
  std::vector<const float*> rows;
  std::vector<float> means;
};

/// Cell (i, j) of the resln and (unnormalized) ALTI maps from T'_i(x_j)'s squared norm and its
/// L1 distance to y_i.
void storeCell(const QueryTargets& t, int i, int j, float squares, float distance, Mat& resln, Mat& alti) {
  resln(i, j) = std::sqrt(squares);
  alti(i, j) = altiProximityAt(t.yNorm(i), distance);
}

/// Key j's cells in rows [i0, i0 + M): resln(i, j) = ||T'_i(x_j)||_2 and ALTI's unnormalized
/// max(0, ||y_i||_1 - ||y_i - T'_i(x_j)||_1), T' = g_i(T) for the post-norm families and T
/// otherwise. Each T_i(x_j) = sum_h alpha^h_ij f^h(x_j) (+ x_i at j = i) is summed 16 (or 8)
/// columns at a time in registers and measured there, never stored: one read of the f rows
/// serves M queries, and nothing of size N x d is written per query.
template <int M, bool PostNorm>
void keyCells(const QueryTargets& t, const KeyHeads& s, int used, int d, int i0, int j, Mat& resln,
              Mat& alti) {
  float mu[M] = {};
  if constexpr (PostNorm)
    for (int u = 0; u < used; ++u)
      for (int q = 0; q < M; ++q)
        mu[q] += s.weights[static_cast<size_t>(u * M + q)] * s.means[static_cast<size_t>(u)];
#if defined(__AVX512F__)
  // One zmm per query for the sum, its squares and its distances (twelve registers for four
  // queries): as plain arrays the compiler kept the sums in memory between the two loops.
  __m512 sq[M], l1[M];
  for (int q = 0; q < M; ++q) sq[q] = l1[q] = _mm512_setzero_ps();
  for (int k0 = 0; k0 < d; k0 += 16) {
    // The last block's lanes past d load zeros: their v and y are 0 and add nothing.
    const __mmask16 lanes = d - k0 >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << (d - k0)) - 1u);
    __m512 acc[M];
    for (int q = 0; q < M; ++q) acc[q] = _mm512_setzero_ps();
    for (int u = 0; u < used; ++u) {
      const __m512 fj = _mm512_maskz_loadu_ps(lanes, s.rows[static_cast<size_t>(u)] + k0);
      const float* a = s.weights.data() + static_cast<size_t>(u) * M;
      for (int q = 0; q < M; ++q) acc[q] = _mm512_fmadd_ps(_mm512_set1_ps(a[q]), fj, acc[q]);
    }
    for (int q = 0; q < M; ++q) {
      __m512 v = acc[q];
      if constexpr (PostNorm)
        v = _mm512_mul_ps(_mm512_sub_ps(v, _mm512_set1_ps(mu[q])),
                          _mm512_maskz_loadu_ps(lanes, t.scale.row(i0 + q).data() + k0));
      sq[q] = _mm512_fmadd_ps(v, v, sq[q]);
      const __m512 y = _mm512_maskz_loadu_ps(lanes, t.y.row(i0 + q).data() + k0);
      l1[q] = _mm512_add_ps(l1[q], _mm512_abs_ps(_mm512_sub_ps(y, v)));
    }
  }
  for (int q = 0; q < M; ++q)
    storeCell(t, i0 + q, j, _mm512_reduce_add_ps(sq[q]), _mm512_reduce_add_ps(l1[q]), resln, alti);
#else
  float sq[M][kCellLanes] = {}, l1[M][kCellLanes] = {};
  int k0 = 0;
  for (; k0 + kCellLanes <= d; k0 += kCellLanes) {
    float acc[M][kCellLanes] = {};
    for (int u = 0; u < used; ++u) {
      const float* fj = s.rows[static_cast<size_t>(u)] + k0;
      const float* a = s.weights.data() + static_cast<size_t>(u) * M;
#pragma GCC unroll 4
      for (int q = 0; q < M; ++q)
#pragma omp simd
        for (int k = 0; k < kCellLanes; ++k) acc[q][k] += a[q] * fj[k];
    }
#pragma GCC unroll 4
    for (int q = 0; q < M; ++q) {
      const float* yq = t.y.row(i0 + q).data() + k0;
      const float* g = PostNorm ? t.scale.row(i0 + q).data() + k0 : nullptr;
#pragma omp simd
      for (int k = 0; k < kCellLanes; ++k) {
        const float v = PostNorm ? (acc[q][k] - mu[q]) * g[k] : acc[q][k];
        sq[q][k] += v * v;
        l1[q][k] += std::fabs(yq[k] - v);
      }
    }
  }
  float tailSq[M] = {}, tailL1[M] = {};
  for (; k0 < d; ++k0)
    for (int q = 0; q < M; ++q) {
      float v = 0.0f;
      for (int u = 0; u < used; ++u)
        v += s.weights[static_cast<size_t>(u * M + q)] * s.rows[static_cast<size_t>(u)][k0];
      if constexpr (PostNorm) v = (v - mu[q]) * t.scale(i0 + q, k0);
      tailSq[q] += v * v;
      tailL1[q] += std::fabs(t.y(i0 + q, k0) - v);
    }
  for (int q = 0; q < M; ++q) {
    float s2 = tailSq[q], s1 = tailL1[q];
    for (int k = 0; k < kCellLanes; ++k) s2 += sq[q][k], s1 += l1[q][k];
    storeCell(t, i0 + q, j, s2, s1, resln, alti);
  }
#endif
}

/// Keys a tile: their f rows (13 x 3 KB a key for GPT-2 small) stay in L2 while every query block
/// uses them, instead of every block streaming all of f (4.7 MB a layer) from L3; 16 keys are a
/// cache line of each map row, so two threads never write the same line.
constexpr int kKeyTile = 16;

/// Keys [j0, j1) of rows [i0, i0 + M) of one layer's resln and ALTI maps (ALTI not normalized):
/// the cells where some head sends T_i(x_j) or j = i; the others, and keys from a row's `end`
/// on, are left at zero.
template <int M, bool PostNorm>
void blockCells(const LayerContext& c, const QueryTargets& t, const int* end, int i0, int j0, int j1,
                KeyHeads& s, Mat& resln, Mat& alti) {
  const int H = static_cast<int>(c.f->size());
  int keys = 0;
  for (int q = 0; q < M; ++q) keys = std::max(keys, end[i0 + q]);
  s.weights.resize(static_cast<size_t>((H + 1) * M));
  s.rows.resize(static_cast<size_t>(H + 1));
  s.means.resize(static_cast<size_t>(H + 1));
  for (int j = j0; j < std::min(j1, keys); ++j) {
    int used = 0;
    bool sends[M] = {};
    for (int h = 0; h < H; ++h) {
      const Mat& w = c.attn->heads[static_cast<size_t>(h)].weights;
      float* a = s.weights.data() + static_cast<size_t>(used) * M;
      bool any = false;
      for (int q = 0; q < M; ++q) {
        a[q] = w(i0 + q, j);
        sends[q] |= a[q] != 0.0f;
        any |= a[q] != 0.0f;
      }
      if (!any) continue;  // masked for every query here: 0 * f adds nothing
      s.rows[static_cast<size_t>(used)] = (*c.f)[static_cast<size_t>(h)].row(j).data();
      if constexpr (PostNorm) s.means[static_cast<size_t>(used)] = t.fMeans(h, j);
      ++used;
    }
    if (j >= i0 && j < i0 + M) {  // the residual: T_i(x_i) includes x_i
      float* a = s.weights.data() + static_cast<size_t>(used) * M;
      for (int q = 0; q < M; ++q) a[q] = i0 + q == j ? 1.0f : 0.0f;
      s.rows[static_cast<size_t>(used)] = c.x->row(j).data();
      if constexpr (PostNorm) s.means[static_cast<size_t>(used)] = t.xMeans(j);
      ++used;
    }
    keyCells<M, PostNorm>(t, s, used, static_cast<int>(c.x->cols()), i0, j, resln, alti);
    for (int q = 0; q < M; ++q)  // T_i(x_j) = 0 exactly: no rounding left in the cell
      if ((!sends[q] && j != i0 + q) || j >= end[i0 + q]) resln(i0 + q, j) = alti(i0 + q, j) = 0.0f;
  }
}

/// One layer's resln and ALTI maps, ALTI's rows normalized over j: key tiles across the threads,
/// every query block within a tile.
template <bool PostNorm>
void layerMaps(const LayerContext& c, const QueryTargets& t, Mat& resln, Mat& alti) {
  const int n = static_cast<int>(c.x->rows());
  std::vector<int> end(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) end[static_cast<size_t>(i)] = sendingKeys(c, i);
  resln.setZero();
  alti.setZero();
  const int tiles = (n + kKeyTile - 1) / kKeyTile;
#pragma omp parallel
  {
    KeyHeads scratch;
#pragma omp for schedule(dynamic, 1)
    for (int tile = 0; tile < tiles; ++tile) {
      const int j0 = tile * kKeyTile, j1 = std::min(n, j0 + kKeyTile);
      int i0 = 0;
      for (; i0 + kQueryBlock <= n; i0 += kQueryBlock)
        blockCells<kQueryBlock, PostNorm>(c, t, end.data(), i0, j0, j1, scratch, resln, alti);
      for (; i0 < n; ++i0) blockCells<1, PostNorm>(c, t, end.data(), i0, j0, j1, scratch, resln, alti);
    }
#pragma omp for schedule(static)
    for (int i = 0; i < n; ++i) {
      const double total = alti.row(i).cast<double>().sum();
      if (total > 0) {
        alti.row(i) /= static_cast<float>(total);
      } else {  // nothing comes closer than zero: the token keeps itself
        alti.row(i).setZero();
        alti(i, i) = 1.0f;
      }
    }
  }
}

}  // namespace

Result<Contributions> computeContributions(const ModelConfig& c, const ModelWeights& w, const ModelRun& run,
                                           const std::string& src, const ProgressFn& progress) {
  if (auto st = checkAttributionRun(c, run, src); !st) return st.error();
  const int n = run.encoding.size(), H = c.heads, hd = c.headDim, d = c.dModel;
  Contributions out;
  out.attentionNorms.resize(static_cast<size_t>(c.layers));
  OutputProjection proj;  // reused from layer to layer, as f: fresh pages cost more than the copy
  std::vector<Mat> f;
  for (int l = 0; l < c.layers; ++l) {
    if (progress && !progress(static_cast<double>(l) / c.layers, "contributions"))
      return Error{src + ": cancelled"};
    const AttentionResult& attn = run.layers[static_cast<size_t>(l)];
    const LayerWeights& L = w.layers[static_cast<size_t>(l)];
    outputProjection(L.o, d, proj);
    // Kobayashi et al. 2020, section 3: head h's output at i is sum_j alpha_ij f(x_j);
    // alpha >= 0, so ||alpha f|| = alpha ||f||.
    headValueVectors(attn, proj, hd, f);
    auto& norms = out.attentionNorms[static_cast<size_t>(l)];
    norms.resize(static_cast<size_t>(H));
#pragma omp parallel for schedule(static)
    for (int h = 0; h < H; ++h) {
      const RowVec fnorm = f[static_cast<size_t>(h)].rowwise().norm().transpose();
      norms[static_cast<size_t>(h)] =
          (attn.heads[static_cast<size_t>(h)].weights.array().rowwise() * fnorm.array()).matrix();
    }
    LayerContext ctx;
    ctx.f = &f;
    ctx.attn = &attn;
    ctx.x = &run.hiddenStates[static_cast<size_t>(l)];
    ctx.proj = &proj;
    ctx.postNorm = c.family == Family::Bert;
    if (ctx.postNorm) {
      ctx.gamma = normVector(L.attnNorm.gamma, d, 1.0f);
      ctx.beta = normVector(L.attnNorm.beta, d, 0.0f);
      ctx.eps = c.normEps;
    }
    const QueryTargets targets = queryTargets(ctx);
    Mat resln(n, n), alti(n, n);
    if (ctx.postNorm)
      layerMaps<true>(ctx, targets, resln, alti);
    else
      layerMaps<false>(ctx, targets, resln, alti);
    out.attentionNormsResLn.push_back(std::move(resln));
    out.alti.push_back(std::move(alti));
  }
  out.altiRollout = altiRollout(out.alti, c.layers - 1);
  if (progress && !progress(1.0, "contributions")) return Error{src + ": cancelled"};
  return out;
}

}  // namespace attn::models
