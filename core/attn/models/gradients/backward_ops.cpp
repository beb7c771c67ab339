#include "attn/models/gradients/backward_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <unsupported/Eigen/SpecialFunctions>

namespace attn::models {
namespace {

/// Packed (BF16, quantized) weights: rows decoded a panel at a time, so no f32 copy of
/// the whole matrix is made.
void packedLinearBackward(const ConstMatRef& dy, const LinearWeight& l, Mat& dx) {
  const WeightTensor& w = l.w;
  constexpr int64_t kPanel = 256;
  Mat panel;
  dx.setZero(dy.rows(), l.in());
  for (int64_t r0 = 0; r0 < w.rows; r0 += kPanel) {
    const int64_t m = std::min(kPanel, w.rows - r0);
    panel.resize(m, w.cols);
    w.rowsTo(r0, m, panel.data());
    if (l.inOut)  // rows of W are inputs
      dx.middleCols(r0, m).noalias() = dy * panel.transpose();
    else  // rows of W are outputs
      dx.noalias() += dy.middleCols(r0, m) * panel;
  }
}

}  // namespace

void linearBackward(const ConstMatRef& dy, const LinearWeight& l, Mat& dx) {
  if (l.w.isPacked()) return packedLinearBackward(dy, l, dx);
  const Eigen::Index n = dy.rows(), in = l.in();
  dx.resize(n, in);
  const auto w = l.w.mat();
  // As linear(): the output (here dx) columns shared among the threads, each reading its
  // own slice of W.
  const int threads =
      threadsFor(2.0 * static_cast<double>(n) * static_cast<double>(in) * static_cast<double>(l.out()));
  const int chunks = static_cast<int>(std::max<Eigen::Index>(1, std::min<Eigen::Index>(threads, in / 64)));
#pragma omp parallel for num_threads(chunks) schedule(static, 1) if (chunks > 1)
  for (int c = 0; c < chunks; ++c) {
    Eigen::Index c0 = in * c / chunks, c1 = in * (c + 1) / chunks;
    c0 -= c0 % 16;
    if (c + 1 < chunks) c1 -= c1 % 16;
    const Eigen::Index m = c1 - c0;
    if (l.inOut)
      dx.middleCols(c0, m).noalias() = dy * w.middleRows(c0, m).transpose();
    else
      dx.middleCols(c0, m).noalias() = dy * w.middleCols(c0, m);
  }
}

void layerNormTaped(const ConstMatRef& x, const NormWeight& n, double eps, Mat& y, NormTape& t) {
  y.resize(x.rows(), x.cols());
  t.xhat.resize(x.rows(), x.cols());
  t.inv.resize(x.rows());
  const auto g = n.gamma.row();
  const float e = static_cast<float>(eps);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const auto r = x.row(i);
    const float mean = r.mean();
    const float var = (r.array() - mean).square().mean();
    const float inv = 1.0f / std::sqrt(var + e);
    t.inv(i) = inv;
    t.xhat.row(i) = ((r.array() - mean) * inv).matrix();
    y.row(i) = ((r.array() - mean) * inv * g.array()).matrix();
    if (!n.beta.empty()) y.row(i) += n.beta.row();
  }
}

void layerNormBackward(const ConstMatRef& dy, const NormWeight& n, const NormTape& t, Mat& dx) {
  dx.resize(dy.rows(), dy.cols());
  const auto gamma = n.gamma.row().array();
  for (Eigen::Index i = 0; i < dy.rows(); ++i) {
    const Eigen::RowVectorXf g = (dy.row(i).array() * gamma).matrix();
    const float meanG = g.mean();
    const float meanGx = g.dot(t.xhat.row(i)) / static_cast<float>(g.size());
    dx.row(i) = (t.inv(i) * (g.array() - meanG - t.xhat.row(i).array() * meanGx)).matrix();
  }
}

void rmsNormTaped(const ConstMatRef& x, const NormWeight& n, double eps, Mat& y, NormTape& t) {
  y.resize(x.rows(), x.cols());
  t.xhat.resize(x.rows(), x.cols());
  t.inv.resize(x.rows());
  const auto g = n.gamma.row();
  const float e = static_cast<float>(eps);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const auto r = x.row(i);
    const float var = r.squaredNorm() / static_cast<float>(r.size());
    const float inv = 1.0f / std::sqrt(var + e);
    t.inv(i) = inv;
    t.xhat.row(i) = r * inv;
    y.row(i) = ((r.array() * inv) * g.array()).matrix();
  }
}

void rmsNormBackward(const ConstMatRef& dy, const NormWeight& n, const NormTape& t, Mat& dx) {
  dx.resize(dy.rows(), dy.cols());
  const auto gamma = n.gamma.row().array();
  for (Eigen::Index i = 0; i < dy.rows(); ++i) {
    const Eigen::RowVectorXf g = (dy.row(i).array() * gamma).matrix();
    const float meanGx = g.dot(t.xhat.row(i)) / static_cast<float>(g.size());
    dx.row(i) = (t.inv(i) * (g.array() - t.xhat.row(i).array() * meanGx)).matrix();
  }
}

void activationBackward(const Mat& pre, Activation a, Mat& du) {
  const Eigen::Index rows = pre.rows();
  const int threads = threadsFor(30.0 * static_cast<double>(pre.size()));
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (Eigen::Index i = 0; i < rows; ++i) {
    const auto x = pre.row(i).array();
    auto d = du.row(i).array();
    switch (a) {
      case Activation::GeluNew: {  // d/dx 0.5 x (1 + tanh(c (x + 0.044715 x^3)))
        const float c = static_cast<float>(std::sqrt(2.0 / std::numbers::pi));
        const Eigen::ArrayXf t = (c * (x + 0.044715f * x.cube())).tanh().transpose();
        const Eigen::ArrayXf xt = x.transpose();
        d *= (0.5f * (1.0f + t) + 0.5f * xt * (1.0f - t.square()) * c * (1.0f + 3 * 0.044715f * xt.square()))
                 .transpose();
        break;
      }
      case Activation::GeluErf: {  // Phi(x) + x phi(x)
        const float invSqrt2 = static_cast<float>(std::numbers::sqrt2 / 2);
        const float invSqrt2Pi = static_cast<float>(1.0 / std::sqrt(2.0 * std::numbers::pi));
        d *= 0.5f * (1.0f + (x * invSqrt2).erf()) + x * invSqrt2Pi * (-0.5f * x.square()).exp();
        break;
      }
      case Activation::Relu:
        d *= (x > 0.0f).cast<float>();
        break;
      case Activation::Silu: {  // s (1 + x (1 - s)), s = sigmoid(x)
        const Eigen::ArrayXf s = (1.0f / (1.0f + (-x).exp())).transpose();
        d *= (s * (1.0f + x.transpose() * (1.0f - s))).transpose();
        break;
      }
      case Activation::QuickGelu: {  // s + 1.702 x s (1 - s), s = sigmoid(1.702 x)
        const Eigen::ArrayXf s = (1.0f / (1.0f + (-1.702f * x).exp())).transpose();
        d *= (s + 1.702f * x.transpose() * s * (1.0f - s)).transpose();
        break;
      }
    }
  }
}

void ropeBackward(Mat& dx, int headDim, const RopeTable& t) {
  // applyRope: y1 = x1 cos - x2 sin, y2 = x2 cos + x1 sin (per pair i, i + half), so
  // dx1 = dy1 cos + dy2 sin, dx2 = dy2 cos - dy1 sin.
  const int half = headDim / 2, heads = static_cast<int>(dx.cols()) / headDim;
  for (Eigen::Index p = 0; p < dx.rows(); ++p)
    for (int h = 0; h < heads; ++h) {
      float* v = &dx(p, h * headDim);
      for (int i = 0; i < half; ++i) {
        const float d1 = v[i], d2 = v[i + half];
        v[i] = d1 * t.cos(p, i) + d2 * t.sin(p, i + half);
        v[i + half] = d2 * t.cos(p, i + half) - d1 * t.sin(p, i);
      }
    }
}

void attentionTaped(AttentionTape& t, const std::vector<uint8_t>& keep, Mat& concat) {
  const int n = static_cast<int>(t.q.rows()), H = t.heads, hd = t.headDim, group = t.heads / t.kvHeads;
  concat.resize(n, static_cast<Eigen::Index>(H) * hd);
  t.probs.resize(static_cast<size_t>(H));
#pragma omp parallel for schedule(dynamic, 1)
  for (int h = 0; h < H; ++h) {
    const int kvh = h / group;
    Mat& p = t.probs[static_cast<size_t>(h)];
    p.noalias() = t.q.middleCols(static_cast<Eigen::Index>(h) * hd, hd) *
                  t.k.middleCols(static_cast<Eigen::Index>(kvh) * hd, hd).transpose();
    p *= t.scale;
    for (int i = 0; i < n; ++i) {  // softmax over the kept keys; masked weights exactly 0
      const uint8_t* row = keep.empty() ? nullptr : &keep[static_cast<size_t>(i) * static_cast<size_t>(n)];
      float m = -std::numeric_limits<float>::infinity();
      for (int j = 0; j < n; ++j)
        if (!row || row[j]) m = std::max(m, p(i, j));
      float sum = 0;
      for (int j = 0; j < n; ++j) {
        p(i, j) = (!row || row[j]) ? std::exp(p(i, j) - m) : 0.0f;
        sum += p(i, j);
      }
      if (sum > 0) p.row(i) /= sum;
    }
    concat.middleCols(static_cast<Eigen::Index>(h) * hd, hd).noalias() =
        p * t.v.middleCols(static_cast<Eigen::Index>(kvh) * hd, hd);
  }
}

void attentionBackward(const AttentionTape& t, const Mat& dconcat, Mat& dq, Mat& dk, Mat& dv,
                       std::vector<Mat>* attnGrad) {
  const int n = static_cast<int>(t.q.rows()), H = t.heads, hd = t.headDim, group = t.heads / t.kvHeads;
  const Eigen::Index nk = t.k.rows();  // the keys: n (self-attention) or another sequence's (cross)
  dq.resize(n, t.q.cols());
  // Query heads sharing a kv head (GQA) add into its dk / dv: each head writes its own
  // slice first, summed per group afterwards, so the heads run in parallel.
  Mat dkHeads(nk, static_cast<Eigen::Index>(H) * hd), dvHeads(nk, static_cast<Eigen::Index>(H) * hd);
  if (attnGrad) attnGrad->resize(static_cast<size_t>(H));
#pragma omp parallel for schedule(dynamic, 1)
  for (int h = 0; h < H; ++h) {
    const int kvh = h / group;
    const Eigen::Index col = static_cast<Eigen::Index>(h) * hd, kvCol = static_cast<Eigen::Index>(kvh) * hd;
    const Mat& p = t.probs[static_cast<size_t>(h)];
    const auto dO = dconcat.middleCols(col, hd);
    Mat dp = dO * t.v.middleCols(kvCol, hd).transpose();
    Mat pdp = p.cwiseProduct(dp);
    if (attnGrad) (*attnGrad)[static_cast<size_t>(h)] = pdp;
    const Vec rowDot = pdp.rowwise().sum();
    // dS = P * (dP - rowsum(P * dP)) = P*dP - P * rowsum, times the logit scale
    Mat ds = pdp - (p.array().colwise() * rowDot.array()).matrix();
    ds *= t.scale;
    dq.middleCols(col, hd).noalias() = ds * t.k.middleCols(kvCol, hd);
    dkHeads.middleCols(col, hd).noalias() = ds.transpose() * t.q.middleCols(col, hd);
    dvHeads.middleCols(col, hd).noalias() = p.transpose() * dO;
  }
  dk.setZero(nk, t.k.cols());
  dv.setZero(nk, t.v.cols());
  for (int h = 0; h < H; ++h) {
    const Eigen::Index col = static_cast<Eigen::Index>(h) * hd,
                       kvCol = static_cast<Eigen::Index>(h / group) * hd;
    dk.middleCols(kvCol, hd) += dkHeads.middleCols(col, hd);
    dv.middleCols(kvCol, hd) += dvHeads.middleCols(col, hd);
  }
}

}  // namespace attn::models
