#include "attn/variants/precision.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "attn/io/float_convert.h"
#include "attn/engine/positions.h"
#include "attn/engine/scores.h"
#include "attn/variants/variant_rows.h"

namespace attn::variants {

namespace {
constexpr float kInf = std::numeric_limits<float>::infinity();

float toBf16(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  if ((bits & 0x7F800000u) == 0x7F800000u) return x;  // inf / NaN stay
  bits += 0x7FFFu + ((bits >> 16) & 1u);              // round to nearest even
  bits &= 0xFFFF0000u;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

bool isFloatFormat(LowPrecision p) { return p == LowPrecision::F16 || p == LowPrecision::BF16; }

float roundLow(float x, LowPrecision p) { return p == LowPrecision::F16 ? roundToHalf(x) : toBf16(x); }

Mat roundMat(const Mat& m, LowPrecision p) { return m.unaryExpr([p](float x) { return roundLow(x, p); }); }

double maxAbsDiff(const Mat& a, const Mat& b) { return a.size() == 0 ? 0.0 : (a - b).cwiseAbs().maxCoeff(); }

// q.k with every product and partial sum rounded to the format.
float lowDot(const Mat& q, Eigen::Index i, const Mat& k, Eigen::Index j, LowPrecision p) {
  float s = 0.0f;
  for (Eigen::Index d = 0; d < q.cols(); ++d) s = roundLow(s + roundLow(q(i, d) * k(j, d), p), p);
  return s;
}

double halfVariance(const Vec& x, double* sumSquares) {
  // Naive one-pass E[x^2] - E[x]^2 with fp16 running sums, as a kernel without fp32 would.
  float s = 0, s2 = 0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const float xi = roundToHalf(x(i));
    s = roundToHalf(s + xi);
    s2 = roundToHalf(s2 + roundToHalf(xi * xi));
  }
  if (sumSquares) *sumSquares = s2;
  const float n = static_cast<float>(x.size());
  const float mean = roundToHalf(s / n);
  return roundToHalf(roundToHalf(s2 / n) - roundToHalf(mean * mean));
}

double variance32(const Vec& x) {
  const double mean = x.cast<double>().mean();
  return (x.cast<double>().array() - mean).square().mean();
}
}  // namespace

std::string_view precisionName(LowPrecision p) {
  switch (p) {
    case LowPrecision::F16: return "fp16";
    case LowPrecision::BF16: return "bf16";
    case LowPrecision::Int8Tensor: return "int8-tensor";
    case LowPrecision::Int8Channel: return "int8-channel";
  }
  return "fp16";
}

std::optional<LowPrecision> parsePrecision(std::string_view name) {
  for (auto p : {LowPrecision::F16, LowPrecision::BF16, LowPrecision::Int8Tensor, LowPrecision::Int8Channel})
    if (precisionName(p) == name) return p;
  return std::nullopt;
}

std::vector<std::string_view> allPrecisions() { return {"fp16", "bf16", "int8-tensor", "int8-channel"}; }

float roundToHalf(float x) { return halfToFloat(floatToHalf(x)); }
float roundToBf16(float x) { return toBf16(x); }

Mat quantizeInt8(const Mat& x, bool perChannel, std::vector<float>* scales) {
  Mat out(x.rows(), x.cols());
  auto quant = [](float v, float s) { return std::clamp(std::nearbyint(v / s), -127.0f, 127.0f) * s; };
  if (scales) scales->clear();
  if (!perChannel) {
    const float m = x.size() > 0 ? x.cwiseAbs().maxCoeff() : 0.0f;
    const float s = m > 0 ? m / 127.0f : 1.0f;
    if (scales) scales->push_back(s);
    for (Eigen::Index i = 0; i < x.size(); ++i) out.data()[i] = quant(x.data()[i], s);
    return out;
  }
  for (Eigen::Index c = 0; c < x.cols(); ++c) {
    const float m = x.rows() > 0 ? x.col(c).cwiseAbs().maxCoeff() : 0.0f;
    const float s = m > 0 ? m / 127.0f : 1.0f;
    if (scales) scales->push_back(s);
    for (Eigen::Index r = 0; r < x.rows(); ++r) out(r, c) = quant(x(r, c), s);
  }
  return out;
}

Result<PrecisionResult> reducedPrecision(const AttentionInput& in, const AttentionResult& ref, const AttentionSpec& spec,
                                         const PrecisionOptions& options) {
  if (spec.mechanism != Mechanism::Dot && spec.mechanism != Mechanism::ScaledDot)
    return Error{fmt::format("--precision: mechanism '{}' is not covered (dot and scaled_dot are)",
                             mechanismName(spec.mechanism))};
  if (ref.heads.empty() || ref.heads[0].q.size() == 0 || ref.heads[0].weights.size() == 0)
    return Error{"--precision: needs a computed result with q, k and weights (not precomputed weights)"};
  const bool projections = options.target == QuantTarget::Projections && !isFloatFormat(options.format);
  if (projections && (ref.wQ.size() == 0 || in.x.size() == 0))
    return Error{"--quantize proj: the input has projected q/k/v (no W_Q/W_K/W_V to quantize); use --quantize qk"};
  PrecisionResult res;
  res.options = options;
  const int nq = ref.nq(), nk = ref.nk();
  const std::vector<uint8_t> allowed = ref.mask.bitmap(nq, nk);
  const bool perChannel = options.format == LowPrecision::Int8Channel;

  // Projections target: q, k, v per head from quantized W (per output column).
  Mat qAll, kAll, vAll;
  if (projections) {
    const Mat xq = addPositionsToEmbeddings(in.x, spec);
    const Mat xkv = in.xKv.size() > 0 ? addPositionsToEmbeddings(in.xKv, spec) : xq;
    auto affine = [](const Mat& x, const Mat& w, const Vec& b) {
      Mat y = x * w;
      if (b.size() > 0) y.rowwise() += b.transpose();
      return y;
    };
    qAll = affine(xq, quantizeInt8(ref.wQ, perChannel), ref.bQ);
    kAll = affine(xkv, quantizeInt8(ref.wK, perChannel), ref.bK);
    vAll = affine(xkv, quantizeInt8(ref.wV, perChannel), ref.bV);
  }
  for (int h = 0; h < ref.numHeads(); ++h) {
    const auto& rh = ref.heads[static_cast<size_t>(h)];
    PrecisionHead ph;
    const Eigen::Index dk = rh.q.cols(), dv = rh.v.cols();
    if (isFloatFormat(options.format)) {
      ph.q = roundMat(rh.q, options.format);
      ph.k = roundMat(rh.k, options.format);
      ph.v = roundMat(rh.v, options.format);
    } else if (projections) {
      ph.q = qAll.middleCols(h * dk, dk);
      ph.k = kAll.middleCols(h * dk, dk);
      ph.v = vAll.middleCols(h * dv, dv);
      applyPositionsToQK(ph.q, ph.k, h, spec);
    } else {
      ph.q = quantizeInt8(rh.q, perChannel);
      ph.k = quantizeInt8(rh.k, perChannel);
      ph.v = rh.v;
    }
    ph.inputError = std::max({maxAbsDiff(ph.q, rh.q), maxAbsDiff(ph.k, rh.k), maxAbsDiff(ph.v, rh.v)});
    const float scale = logitScale(spec.mechanism, dk, spec.temperature);
    ph.logits.resize(nq, nk);
    if (isFloatFormat(options.format)) {
      const Mat raw = ph.q * ph.k.transpose();  // fp32 accumulation of the rounded inputs
      for (int i = 0; i < nq; ++i)
        for (int j = 0; j < nk; ++j) {
          const float s = options.accumulate == Accumulation::Low ? lowDot(ph.q, i, ph.k, j, options.format)
                                                                  : roundLow(raw(i, j), options.format);
          ph.logits(i, j) = roundLow(s * scale, options.format);
        }
    } else {
      ph.logits = scale * (ph.q * ph.k.transpose());
    }
    if (rh.logitBias.size() > 0) ph.logits += rh.logitBias;
    for (int i = 0; i < nq; ++i)
      for (int j = 0; j < nk; ++j)
        if (!allowed[static_cast<size_t>(i) * nk + j]) ph.logits(i, j) = -kInf;
    ph.weights = maskedSoftmaxRows(ph.logits);
    ph.reference = rh.weights;
    ph.referenceLogits = rh.maskedLogits;
    ph.error = (ph.weights - ph.reference).cwiseAbs();
    ph.maxError = ph.error.size() > 0 ? ph.error.maxCoeff() : 0.0;
    ph.meanRowKl = meanRowKl(ph.reference, ph.weights);
    ph.topOneAgreement = topOneAgreement(ph.reference, ph.weights);
    ph.output = ph.weights * ph.v;
    // fp16 softmax without max subtraction, on the reference logits.
    ph.overflow = Mat::Zero(nq, nk);
    ph.maxLogit = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < nq; ++i) {
      float sum = 0.0f;
      bool cellOver = false;
      for (int j = 0; j < nk; ++j) {
        const float s = rh.maskedLogits(i, j);
        if (!std::isfinite(s)) continue;
        ph.maxLogit = std::max(ph.maxLogit, static_cast<double>(s));
        const float e = roundToHalf(std::exp(s));
        if (std::isinf(e)) {
          ph.overflow(i, j) = 2.0f;
          ++ph.overflowCells;
          cellOver = true;
        }
        sum = roundToHalf(sum + e);
      }
      if (std::isinf(sum) || cellOver) {
        ++ph.overflowRows;
        for (int j = 0; j < nk; ++j)
          if (ph.overflow(i, j) == 0.0f && std::isfinite(rh.maskedLogits(i, j))) ph.overflow(i, j) = 1.0f;
      }
    }
    res.heads.push_back(std::move(ph));
  }
  return res;
}

Result<PrecisionRowWalk> precisionRowWalk(const PrecisionResult& r, const AttentionInput& in, int head, int row) {
  if (head < 0 || head >= static_cast<int>(r.heads.size()))
    return Error{fmt::format("head {} is out of range (1..{})", head + 1, r.heads.size())};
  const auto& ph = r.heads[static_cast<size_t>(head)];
  if (row < 0 || row >= ph.logits.rows())
    return Error{fmt::format("row {} is out of range (0..{})", row, ph.logits.rows() - 1)};
  PrecisionRowWalk w;
  w.row = row;
  const Eigen::Index nk = ph.logits.cols();
  w.logitsLow = ph.logits.row(row).transpose();
  w.weightsLow = ph.weights.row(row).transpose();
  w.weights32 = ph.reference.row(row).transpose();
  w.logits32 = ph.referenceLogits.row(row).transpose();
  w.expNoMax = Vec::Zero(nk);
  w.weightsNoMax = Vec::Zero(nk);
  w.expWithMax = Vec::Zero(nk);
  w.rowMax = -kInf;
  float sum = 0.0f;
  for (Eigen::Index j = 0; j < nk; ++j) {
    if (!std::isfinite(w.logits32(j))) continue;
    w.rowMax = std::max(w.rowMax, w.logits32(j));
    w.expNoMax(j) = roundToHalf(std::exp(w.logits32(j)));
    sum = roundToHalf(sum + w.expNoMax(j));
  }
  w.sumNoMax = sum;
  float sumMax = 0.0f;
  double sum32 = 0.0;
  for (Eigen::Index j = 0; j < nk; ++j) {
    if (!std::isfinite(w.logits32(j))) continue;
    w.weightsNoMax(j) = roundToHalf(w.expNoMax(j) / sum);  // inf/inf = NaN, finite/inf = 0
    w.expWithMax(j) = roundToHalf(std::exp(w.logits32(j) - w.rowMax));
    sumMax = roundToHalf(sumMax + w.expWithMax(j));
    sum32 += std::exp(static_cast<double>(w.logits32(j)) - w.rowMax);
  }
  w.sumWithMaxHalf = sumMax;
  w.sumWithMax32 = sum32;
  w.rowKl = meanRowKl(Mat(w.weights32.transpose()), Mat(w.weightsLow.transpose()));
  Eigen::Index a = 0, b = 0;
  w.weights32.maxCoeff(&a);
  w.weightsLow.maxCoeff(&b);
  w.topOneSame = a == b;
  if (in.x.rows() > row) {
    w.hasEmbedding = true;
    const Vec x = in.x.row(row).transpose();
    w.var32 = variance32(x);
    w.varHalf = halfVariance(x, nullptr);
    const Vec x16 = 16.0f * x;
    w.var32x16 = variance32(x16);
    w.varHalfx16 = halfVariance(x16, &w.sumSquaresHalfx16);
  }
  return w;
}

}  // namespace attn::variants
