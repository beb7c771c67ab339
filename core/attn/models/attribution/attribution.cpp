#include "attn/models/attribution/attribution.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

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

/// Rows [i0, i0 + M) of the resln and ALTI maps of one layer. Key j's vectors for the M queries,
/// T_i(x_j) = sum_h alpha^h_ij f^h(x_j), are summed in one pass over the heads' f rows while
/// their M rows are in L1.
template <int M>
void queryRows(const LayerContext& c, int i0, std::array<Mat, kQueryBlock>& vectors, Mat& resln, Mat& alti) {
  const int d = static_cast<int>(c.x->cols());
  int end[M], keys = 0;
  for (int q = 0; q < M; ++q) keys = std::max(keys, end[q] = sendingKeys(c, i0 + q));
  for (int j = 0; j < keys; ++j) {
    float* out[M];
    for (int q = 0; q < M; ++q) {
      out[q] = vectors[q].row(j).data();
      std::fill(out[q], out[q] + d, 0.0f);
    }
    for (size_t h = 0; h < c.f->size(); ++h) {
      const Mat& w = c.attn->heads[h].weights;
      float a[M];
      bool any = false;
      for (int q = 0; q < M; ++q) any |= (a[q] = w(i0 + q, j)) != 0.0f;
      if (!any) continue;  // masked for every query here: 0 * f adds nothing
      const float* fj = (*c.f)[h].row(j).data();
#pragma omp simd
      for (int k = 0; k < d; ++k)
        for (int q = 0; q < M; ++q) out[q][k] += a[q] * fj[k];
    }
  }
  for (int q = 0; q < M; ++q) {
    vectors[q].row(i0 + q) += c.x->row(i0 + q);
    finishQueryRow(c, i0 + q, vectors[q].topRows(end[q]), resln, alti);
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
      std::array<Mat, kQueryBlock> vectors;
      for (auto& v : vectors) v.resize(n, d);
#pragma omp for schedule(dynamic, 1)
      for (int i0 = 0; i0 < n; i0 += kQueryBlock) {
        if (i0 + kQueryBlock <= n) {
          queryRows<kQueryBlock>(ctx, i0, vectors, resln, alti);
        } else {
          for (int i = i0; i < n; ++i) queryRows<1>(ctx, i, vectors, resln, alti);
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
