#include "attn/models/attribution/attribution.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

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

/// Keys from the returned one on get no weight from any head at query i, and are past i: their
/// T_i(x_j) is zero (a causal row: half the keys on average, and so half the work).
int sendingKeys(const LayerContext& c, int i) {
  const int n = static_cast<int>(c.x->rows());
  int end = i + 1;
  for (const auto& head : c.attn->heads) {
    const float* row = head.weights.row(i).data();
    int last = n;
    while (last > end && row[last - 1] == 0.0f) --last;
    end = last;
  }
  return end;
}

/// Queries whose T_i(x_j) are summed from one read of the heads' f rows (Q = 4 cut the reads of
/// f, most of the contributions' time, to a quarter).
constexpr int kQueryBlock = 4;

/// Row i of the resln and ALTI maps from `sent`, its keys' vectors T_i(x_j) (j < end, the
/// residual already in row i): y_i = sum_j T_i(x_j) + b_O, then, for the post-norm families, the
/// vectors and y_i through the LayerNorm taken apart.
void finishQueryRow(const LayerContext& c, int i,
                    Eigen::Block<Mat, Eigen::Dynamic, Eigen::Dynamic, true> sent, Mat& resln, Mat& alti) {
  const int n = static_cast<int>(c.x->rows()), d = static_cast<int>(sent.cols()),
            end = static_cast<int>(sent.rows());
  RowVec y = sent.colwise().sum() + c.proj->b;
  if (c.postNorm) {
    const double mean = y.cast<double>().mean();
    const double var = (y.cast<double>().array() - mean).square().mean();
    const float inv = static_cast<float>(1.0 / std::sqrt(var + c.eps));
    const Eigen::VectorXf means = sent.rowwise().mean();
    sent.colwise() -= means;
    sent.array().rowwise() *= (c.gamma * inv).array();
    y = ((y.array() - static_cast<float>(mean)) * inv * c.gamma.array() + c.beta.array()).matrix();
  }
  // ALTI (Ferrando et al. 2022, section 3): d_ij = ||y_i - T_i(x_j)||_1, and
  // c_ij = max(0, ||y_i||_1 - d_ij) normalized over j. Keys from `end` on send a zero vector.
  const float yNorm = y.lpNorm<1>();
  const float unsent = altiProximity(y, yNorm, RowVec::Zero(d));
  double total = 0;
  for (int j = 0; j < n; ++j) {
    resln(i, j) = j < end ? sent.row(j).norm() : 0.0f;
    alti(i, j) = j < end ? altiProximity(y, yNorm, sent.row(j)) : unsent;
    total += alti(i, j);
  }
  if (total > 0) {
    alti.row(i) /= static_cast<float>(total);
  } else {  // nothing comes closer than zero: the token keeps itself
    alti.row(i).setZero();
    alti(i, i) = 1.0f;
  }
}

/// Per thread: the block's vectors and, for one key, the heads that send it (their weights at
/// each query of the block and their f rows).
struct QueryScratch {
  std::array<Mat, kQueryBlock> vectors;
  std::vector<float> weights;
  std::vector<const float*> rows;
};

/// Key j's vectors for the M queries from `used` heads (s.rows, s.weights): 16 columns at a time
/// in registers over every head, so each f value is loaded once and each output written once.
template <int M>
void sumHeads(const QueryScratch& s, int used, int d, float* const* out) {
  constexpr int kLanes = 16;
  int k0 = 0;
  for (; k0 + kLanes <= d; k0 += kLanes) {
    float acc[M][kLanes] = {};
    for (int u = 0; u < used; ++u) {
      const float* fj = s.rows[static_cast<size_t>(u)] + k0;
      const float* a = s.weights.data() + static_cast<size_t>(u) * M;
#pragma GCC unroll 4
      for (int q = 0; q < M; ++q)
#pragma omp simd
        for (int k = 0; k < kLanes; ++k) acc[q][k] += a[q] * fj[k];
    }
    for (int q = 0; q < M; ++q) std::copy(acc[q], acc[q] + kLanes, out[q] + k0);
  }
  for (; k0 < d; ++k0)
    for (int q = 0; q < M; ++q) {
      float acc = 0.0f;
      for (int u = 0; u < used; ++u)
        acc += s.weights[static_cast<size_t>(u * M + q)] * s.rows[static_cast<size_t>(u)][k0];
      out[q][k0] = acc;
    }
}

/// Rows [i0, i0 + M) of the resln and ALTI maps of one layer. Key j's vectors for the M queries,
/// T_i(x_j) = sum_h alpha^h_ij f^h(x_j), come from one read of the heads' f rows.
template <int M>
void queryRows(const LayerContext& c, int i0, QueryScratch& s, Mat& resln, Mat& alti) {
  const int d = static_cast<int>(c.x->cols()), H = static_cast<int>(c.f->size());
  int end[M], keys = 0;
  for (int q = 0; q < M; ++q) keys = std::max(keys, end[q] = sendingKeys(c, i0 + q));
  s.weights.resize(static_cast<size_t>(H * M));
  s.rows.resize(static_cast<size_t>(H));
  for (int j = 0; j < keys; ++j) {
    int used = 0;
    for (int h = 0; h < H; ++h) {
      const Mat& w = c.attn->heads[static_cast<size_t>(h)].weights;
      float* a = s.weights.data() + static_cast<size_t>(used) * M;
      bool any = false;
      for (int q = 0; q < M; ++q) any |= (a[q] = w(i0 + q, j)) != 0.0f;
      if (!any) continue;  // masked for every query here: 0 * f adds nothing
      s.rows[static_cast<size_t>(used++)] = (*c.f)[static_cast<size_t>(h)].row(j).data();
    }
    float* out[M];
    for (int q = 0; q < M; ++q) out[q] = s.vectors[static_cast<size_t>(q)].row(j).data();
    sumHeads<M>(s, used, d, out);
  }
  for (int q = 0; q < M; ++q) {
    Mat& v = s.vectors[static_cast<size_t>(q)];
    v.row(i0 + q) += c.x->row(i0 + q);
    finishQueryRow(c, i0 + q, v.topRows(end[q]), resln, alti);
  }
}

}  // namespace

Result<Contributions> computeContributions(const ModelConfig& c, const ModelWeights& w, const ModelRun& run,
                                           const std::string& src, const ProgressFn& progress) {
  if (auto st = checkAttributionRun(c, run, src); !st) return st.error();
  const int n = run.encoding.size(), H = c.heads, hd = c.headDim, d = c.dModel;
  Contributions out;
  out.attentionNorms.resize(static_cast<size_t>(c.layers));
  for (int l = 0; l < c.layers; ++l) {
    if (progress && !progress(static_cast<double>(l) / c.layers, "contributions"))
      return Error{src + ": cancelled"};
    const AttentionResult& attn = run.layers[static_cast<size_t>(l)];
    const LayerWeights& L = w.layers[static_cast<size_t>(l)];
    const OutputProjection proj = outputProjection(L.o, d);
    // Kobayashi et al. 2020, section 3: head h's output at i is sum_j alpha_ij f(x_j);
    // alpha >= 0, so ||alpha f|| = alpha ||f||.
    const std::vector<Mat> f = headValueVectors(attn, proj, hd);
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
    Mat resln(n, n), alti(n, n);
#pragma omp parallel
    {
      QueryScratch scratch;
      for (auto& v : scratch.vectors) v.resize(n, d);
#pragma omp for schedule(dynamic, 1)
      for (int i0 = 0; i0 < n; i0 += kQueryBlock) {
        if (i0 + kQueryBlock <= n) {
          queryRows<kQueryBlock>(ctx, i0, scratch, resln, alti);
        } else {
          for (int i = i0; i < n; ++i) queryRows<1>(ctx, i, scratch, resln, alti);
        }
      }
    }
    out.attentionNormsResLn.push_back(std::move(resln));
    out.alti.push_back(std::move(alti));
  }
  out.altiRollout = altiRollout(out.alti, c.layers - 1);
  if (progress && !progress(1.0, "contributions")) return Error{src + ": cancelled"};
  return out;
}

}  // namespace attn::models
