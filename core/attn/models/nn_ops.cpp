#include "attn/models/nn_ops.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <unsupported/Eigen/SpecialFunctions>
#include <vector>

#include "attn/models/products/panel_product.h"
#include "attn/models/products/token_gemm.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attn::models {
int threadsFor(double flops) {
#ifdef _OPENMP
  if (flops > 4e6 && !omp_in_parallel()) return std::max(1, omp_get_max_threads());
#endif
  (void)flops;
  return 1;
}

void linear(const ConstMatRef& x, const LinearWeight& l, Mat& y) {
  if (linearTokenGemm(x, l, y)) return;  // AVX-512, f32 / BF16, 16-1024 tokens
  if (l.w.isPacked() && !l.inOut) return linearPackedPanels(x, l, y);
  const Eigen::Index n = x.rows(), out = l.out();
  y.resize(n, out);
  const auto w = l.w.mat();
  // Split by output columns: with few tokens, each thread then packs only its
  // share of W (splitting rows would make every thread pack all of W).
  const int threads = threadsFor(2.0 * static_cast<double>(n) * static_cast<double>(l.in()) * static_cast<double>(out));
  const int chunks = static_cast<int>(std::max<Eigen::Index>(1, std::min<Eigen::Index>(threads, out / 64)));
#pragma omp parallel for num_threads(chunks) schedule(static, 1) if (chunks > 1)
  for (int c = 0; c < chunks; ++c) {
    Eigen::Index c0 = out * c / chunks, c1 = out * (c + 1) / chunks;
    c0 -= c0 % 16;  // register-block multiples
    if (c + 1 < chunks) c1 -= c1 % 16;
    const Eigen::Index m = c1 - c0;
    auto yc = y.middleCols(c0, m);
    if (l.inOut) yc.noalias() = x * w.middleCols(c0, m);
    else yc.noalias() = x * w.middleRows(c0, m).transpose();
    if (!l.b.empty()) yc.rowwise() += l.b.row().segment(c0, m);
  }
}

// The norms, residual adds and column copies are row-wise and a few MB at long N: on one thread,
// the other cores waited for them between the products.
void layerNorm(const ConstMatRef& x, const NormWeight& n, double eps, Mat& y) {
  y.resize(x.rows(), x.cols());
  const auto g = n.gamma.row();
  const float e = static_cast<float>(eps);
  const int threads = threadsFor(8.0 * static_cast<double>(x.size()));
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const auto r = x.row(i);
    const float mean = r.mean();
    const float var = (r.array() - mean).square().mean();
    const float inv = 1.0f / std::sqrt(var + e);
    y.row(i) = ((r.array() - mean) * inv * g.array()).matrix();
    if (!n.beta.empty()) y.row(i) += n.beta.row();
  }
}

void rmsNorm(const ConstMatRef& x, const NormWeight& n, double eps, Mat& y) {
  y.resize(x.rows(), x.cols());
  const auto g = n.gamma.row();
  const float e = static_cast<float>(eps);
  const int threads = threadsFor(4.0 * static_cast<double>(x.size()));
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const auto r = x.row(i);
    const float var = r.squaredNorm() / static_cast<float>(r.size());
    const float inv = 1.0f / std::sqrt(var + e);  // torch.rsqrt
    y.row(i) = ((r.array() * inv) * g.array()).matrix();
  }
}

void addResidual(Mat& h, const Mat& o) {
  const Eigen::Index rows = h.rows();
  const int threads = threadsFor(static_cast<double>(h.size()) * 8.0);
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (Eigen::Index i = 0; i < rows; ++i) h.row(i) += o.row(i);
}

void copyColumns(const Mat& src, Eigen::Index c0, Eigen::Index cols, Mat& dst) {
  const Eigen::Index rows = src.rows();
  dst.resize(rows, cols);
  const int threads = threadsFor(static_cast<double>(rows * cols) * 8.0);
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (Eigen::Index i = 0; i < rows; ++i) dst.row(i) = src.row(i).segment(c0, cols);
}

void activate(Mat& x, Activation a) {
  const Eigen::Index rows = x.rows();
  const int threads = threadsFor(20.0 * static_cast<double>(x.size()));
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (Eigen::Index i = 0; i < rows; ++i) {
    auto r = x.row(i).array();
    switch (a) {
      case Activation::GeluNew: {  // transformers NewGELUActivation
        const float c = static_cast<float>(std::sqrt(2.0 / std::numbers::pi));
        r = 0.5f * r * (1.0f + (c * (r + 0.044715f * r.cube())).tanh());
        break;
      }
      case Activation::GeluErf:  // torch.nn.functional.gelu (exact)
        // Eigen's vectorized erf (a rational approximation, within 4e-7 of erf; the GELU within
        // 2e-6 at |x| = 10) instead of libm's scalar erff, tens of times slower per value.
        r = 0.5f * r * (1.0f + (r * static_cast<float>(std::numbers::sqrt2 / 2)).erf());
        break;
      case Activation::Relu: r = r.max(0.0f); break;
      case Activation::Silu: r = r / (1.0f + (-r).exp()); break;
      case Activation::QuickGelu:
        r = r / (1.0f + (-1.702f * r).exp());
        break;  // CLIP: x * sigmoid(1.702 x)
    }
  }
}

RopeTable ropeTable(int n, int headDim, double theta, const RopeScaling& s) {
  const int half = headDim / 2;
  std::vector<float> invFreq(static_cast<size_t>(half));
  for (int i = 0; i < half; ++i) {
    // base ** (arange(0, dim, 2).float() / dim), then 1 / that, in f32
    const float expo = static_cast<float>(2 * i) / static_cast<float>(headDim);
    float f = 1.0f / std::pow(static_cast<float>(theta), expo);
    if (s.type == "linear") {
      f = static_cast<float>(f / s.factor);
    } else if (s.type == "llama3") {  // transformers _compute_llama3_parameters
      const double wavelen = 2 * std::numbers::pi / f;
      const double lowWavelen = s.originalMaxPositions / s.lowFreqFactor;
      const double highWavelen = s.originalMaxPositions / s.highFreqFactor;
      if (wavelen > lowWavelen) {
        f = static_cast<float>(f / s.factor);
      } else if (wavelen >= highWavelen) {
        const double smooth = (s.originalMaxPositions / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
        f = static_cast<float>((1 - smooth) * f / s.factor + smooth * f);
      }
    }
    if (!s.freqFactors.empty()) f /= s.freqFactors[static_cast<size_t>(i)];
    invFreq[static_cast<size_t>(i)] = f;
  }
  RopeTable t;
  t.cos.resize(n, headDim);
  t.sin.resize(n, headDim);
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < half; ++i) {
      const float a = static_cast<float>(p) * invFreq[static_cast<size_t>(i)];  // f32, as the matmul does
      t.cos(p, i) = t.cos(p, i + half) = std::cos(a);
      t.sin(p, i) = t.sin(p, i + half) = std::sin(a);
    }
  return t;
}

void deinterleaveHeads(Mat& x, int headDim) {
  const int half = headDim / 2, heads = static_cast<int>(x.cols()) / headDim;
  std::vector<float> tmp(static_cast<size_t>(headDim));
  for (Eigen::Index p = 0; p < x.rows(); ++p)
    for (int h = 0; h < heads; ++h) {
      float* v = &x(p, h * headDim);
      for (int i = 0; i < half; ++i) {
        tmp[static_cast<size_t>(i)] = v[2 * i];
        tmp[static_cast<size_t>(half + i)] = v[2 * i + 1];
      }
      std::copy(tmp.begin(), tmp.end(), v);
    }
}

void applyRope(Mat& x, int headDim, const RopeTable& t) {
  const int half = headDim / 2, heads = static_cast<int>(x.cols()) / headDim;
  for (Eigen::Index p = 0; p < x.rows(); ++p)
    for (int h = 0; h < heads; ++h) {
      float* v = &x(p, h * headDim);
      for (int i = 0; i < half; ++i) {
        const float x1 = v[i], x2 = v[i + half];
        v[i] = x1 * t.cos(p, i) - x2 * t.sin(p, i);
        v[i + half] = x2 * t.cos(p, i + half) + x1 * t.sin(p, i + half);
      }
    }
}

void RunningTopK::add(const float* l, int n, int first) {
  if (k_ == 0 || n <= 0) return;
  // A vocabulary of 128k per position: the exponentials in float packets (Eigen's exp, within
  // 2 ulp) summed in double per chunk, the normalizer rescaled when the max rises.
  const Eigen::Map<const Eigen::ArrayXf> logits(l, n);
  const float m = logits.maxCoeff();
  if (m > max_) {
    sum_ *= std::exp(static_cast<double>(max_) - m);
    max_ = m;
  }
  constexpr int kChunk = 2048;
  for (int j0 = 0; j0 < n; j0 += kChunk) {
    const int c = std::min(kChunk, n - j0);
    sum_ += static_cast<double>((logits.segment(j0, c) - max_).exp().sum());
  }
  // Ascending ids: a later equal logit never displaces an earlier one (ties by the smaller id).
  for (int j = 0; j < n; ++j) {
    if (static_cast<int>(best_.size()) == k_ && !(l[j] > best_.back().first)) continue;
    const auto at = std::upper_bound(best_.begin(), best_.end(), l[j],
                                     [](float v, const std::pair<float, int>& b) { return v > b.first; });
    best_.insert(at, {l[j], first + j});
    if (static_cast<int>(best_.size()) > k_) best_.pop_back();
  }
}

std::vector<TopToken> RunningTopK::result() const {
  std::vector<TopToken> row;
  row.reserve(best_.size());
  for (const auto& [logit, id] : best_)
    row.push_back(TopToken{id, {}, static_cast<float>(std::exp(static_cast<double>(logit) - max_) / sum_)});
  return row;
}

std::vector<TopToken> softmaxTopK(const float* l, int V, int k) {
  RunningTopK top(std::min(k, V));
  top.add(l, V, 0);
  return top.result();
}

}  // namespace attn::models
