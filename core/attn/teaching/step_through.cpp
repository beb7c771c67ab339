#include "attn/teaching/step_through.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace attn {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

Status checkRow(const HeadResult& head, int query) {
  if (head.q.rows() == 0 || head.k.rows() == 0) return Error{"step-through: this head has no queries and keys (precomputed weights carry no scores to step through)"};
  if (query < 0 || query >= head.q.rows())
    return Error{fmt::format("step-through: query row {} is out of range (0..{})", query, head.q.rows() - 1)};
  return okStatus();
}

StepThrough begin(const HeadResult& head, int query) {
  StepThrough st;
  st.query = query;
  st.q = head.q.row(query).transpose();
  st.k = head.k;
  st.v = head.v;
  return st;
}

// Temperature, bias, mask, softmax and the weighted sum: shared by every score.
void finish(StepThrough& st, const HeadResult& head, const AttentionSpec& spec) {
  const auto nk = st.k.rows();
  st.temperature = spec.temperature;
  st.temperedScores = st.scaledScores / spec.temperature;
  st.biasedScores = st.temperedScores;
  if (head.logitBias.rows() > st.query && head.logitBias.cols() == nk) {
    st.bias = head.logitBias.row(st.query).transpose();
    st.biasedScores += st.bias;
  }
  st.allowed.resize(static_cast<size_t>(nk));
  st.maskedScores = st.biasedScores;
  st.rowMax = kNegInf;
  for (Eigen::Index j = 0; j < nk; ++j) {
    const bool ok = spec.mask.allowed(st.query, static_cast<int>(j));
    st.allowed[static_cast<size_t>(j)] = ok ? 1 : 0;
    if (!ok) st.maskedScores(j) = kNegInf;
    else st.rowMax = std::max(st.rowMax, st.maskedScores(j));
  }
  st.exps = Vec::Zero(nk);
  st.weights = Vec::Zero(nk);
  st.fullyMasked = st.rowMax == kNegInf;
  st.expSum = 0.0;
  if (!st.fullyMasked) {
    for (Eigen::Index j = 0; j < nk; ++j) {
      if (!st.allowed[static_cast<size_t>(j)]) continue;  // exactly 0, not exp(-inf)
      st.exps(j) = std::exp(st.maskedScores(j) - st.rowMax);
      st.expSum += st.exps(j);
    }
    st.weights = st.exps / static_cast<float>(st.expSum);
  } else {
    st.rowMax = 0.0f;
  }
  st.weightedValues = st.v;
  for (Eigen::Index j = 0; j < nk; ++j) st.weightedValues.row(j) *= st.weights(j);
  st.output = st.weightedValues.colwise().sum().transpose();
}

}  // namespace

std::vector<StepKind> StepThrough::steps() const {
  std::vector<StepKind> s{StepKind::QueryAndKeys};
  if (additive) {
    s.insert(s.end(), {StepKind::AdditiveProjections, StepKind::AdditiveTanh, StepKind::AdditiveScores});
  } else {
    if (general) s.push_back(StepKind::BilinearProjection);
    if (cosine) s.push_back(StepKind::CosineNormalize);
    s.push_back(StepKind::RawScores);
    if (scaled) s.push_back(StepKind::Scale);
  }
  s.push_back(StepKind::Temperature);
  if (bias.size() > 0) s.push_back(StepKind::PositionalBias);
  s.insert(s.end(), {StepKind::Mask, StepKind::Softmax, StepKind::WeightedSum, StepKind::Output});
  return s;
}

Result<StepThrough> stepThrough(const HeadResult& head, const AttentionSpec& spec, int query) {
  if (auto ok = checkRow(head, query); !ok) return ok.error();
  if (spec.mechanism == Mechanism::Additive) {
    const ScoreParams& p = head.scoreParams;
    return additiveStepThrough(head, p.wAddQ, p.wAddK, p.vAdd, spec, query, p.bAdd);
  }
  StepThrough st = begin(head, query);
  switch (spec.mechanism) {
    case Mechanism::Dot:
    case Mechanism::ScaledDot: st.rawScores = st.k * st.q; break;
    case Mechanism::General: {
      const Mat& w = head.scoreParams.wBilinear;
      if (w.rows() != head.q.cols() || w.cols() != head.k.cols())
        return Error{fmt::format("step-through: the general weight W [{}, {}] does not fit q [.., {}] and k [.., {}]",
                                 w.rows(), w.cols(), head.q.cols(), head.k.cols())};
      st.general = true;
      st.qW = w.transpose() * st.q;
      st.rawScores = st.k * st.qW;
      break;
    }
    case Mechanism::Cosine: {
      constexpr float kEps = 1e-12f;  // the engine's (and torch's normalize) floor
      st.cosine = true;
      st.qNorm = st.q.norm();
      st.qUnit = st.q / std::max(st.qNorm, kEps);
      st.kNorms = st.k.rowwise().norm();
      st.kUnit = st.k;
      for (Eigen::Index j = 0; j < st.k.rows(); ++j) st.kUnit.row(j) /= std::max(st.kNorms(j), kEps);
      st.rawScores = st.kUnit * st.qUnit;
      break;
    }
    case Mechanism::Additive: break;  // handled above
  }
  st.scaled = spec.mechanism == Mechanism::ScaledDot;
  st.scale = st.scaled ? 1.0f / std::sqrt(static_cast<float>(st.q.size())) : 1.0f;
  st.scaledScores = st.rawScores * st.scale;
  finish(st, head, spec);
  return st;
}

Result<StepThrough> additiveStepThrough(const HeadResult& head, const Mat& wAddQ, const Mat& wAddK,
                                        const Vec& vAdd, const AttentionSpec& spec, int query, const Vec& bAdd) {
  if (auto ok = checkRow(head, query); !ok) return ok.error();
  if (wAddQ.rows() != head.q.cols() || wAddK.rows() != head.k.cols() || wAddQ.cols() != wAddK.cols() ||
      vAdd.size() != wAddQ.cols() || (bAdd.size() > 0 && bAdd.size() != vAdd.size()))
    return Error{fmt::format(
        "step-through: additive parameters w_add_q [{}, {}], w_add_k [{}, {}], v_add [{}] do not fit "
        "q [.., {}] and k [.., {}]",
        wAddQ.rows(), wAddQ.cols(), wAddK.rows(), wAddK.cols(), vAdd.size(), head.q.cols(), head.k.cols())};
  StepThrough st = begin(head, query);
  st.additive = true;
  st.vAdd = vAdd;
  st.wqQ = wAddQ.transpose() * st.q;
  if (bAdd.size() > 0) st.wqQ += bAdd;  // the bias sits inside the tanh; shown with W_q^T q
  st.wkK = st.k * wAddK;
  st.tanhSum = (st.wkK.rowwise() + st.wqQ.transpose()).array().tanh().matrix();
  st.rawScores = st.tanhSum * vAdd;
  st.scaledScores = st.rawScores;
  finish(st, head, spec);
  return st;
}

}  // namespace attn
