#include "attn/models/gradients/seq2seq_gradient.h"

#include <fmt/format.h>

#include <cmath>

#include "attn/models/gradients/seq2seq_tape.h"
#include "attn/models/nn_ops.h"
#include "attn/models/seq2seq/relative_position.h"

namespace attn::models {
namespace {

Status checkSeq2SeqIds(const Seq2SeqConfig& c, const std::vector<int>& ids, const char* what,
                       const std::string& src) {
  if (ids.empty()) return Error{fmt::format("{}: the {} has no tokens", src, what)};
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= c.base.vocabSize)
      return Error{fmt::format("{}: {} token id {} at position {} is outside the vocabulary (vocab_size {})",
                               src, what, ids[i], i, c.base.vocabSize)};
  if (static_cast<int64_t>(ids.size()) > c.maxPositions)
    return Error{fmt::format("{}: the {} has {} tokens but the model takes {} at most", src, what, ids.size(),
                             c.maxPositions)};
  return okStatus();
}

Status checkSeq2SeqRequest(const Seq2SeqConfig& c, const std::vector<int>& sourceIds,
                           const std::vector<int>& decoderIds, int target, const GradientOptions& o,
                           const std::string& src) {
  if (auto st = checkSeq2SeqIds(c, sourceIds, "source", src); !st) return st;
  if (auto st = checkSeq2SeqIds(c, decoderIds, "target", src); !st) return st;
  if (o.objective != GradientObjective::TargetLogit)
    return Error{src + ": an encoder-decoder model's gradients explain one target logit (not a loss)"};
  if (target < -1 || target >= c.base.vocabSize)
    return Error{fmt::format("{}: target token id {} is outside the vocabulary (0 to {})", src, target,
                             c.base.vocabSize - 1)};
  const int nt = static_cast<int>(decoderIds.size());
  if (o.position < -1 || o.position >= nt)
    return Error{
        fmt::format("{}: position {} is outside the decoder's {} rows (0 to {}, decoder start first)", src,
                    o.position, nt, nt - 1)};
  if (o.steps < 1 || o.steps > 4096)
    return Error{fmt::format("{}: integrated gradients need 1 to 4096 steps (got {})", src, o.steps)};
  return okStatus();
}

/// inputs_embeds: the token rows times the embedding scale (BartScaledWordEmbedding's sqrt(d)).
Mat inputEmbeddings(const Seq2SeqConfig& c, const Seq2SeqWeights& w, const std::vector<int>& ids) {
  Mat x(static_cast<Eigen::Index>(ids.size()), c.base.dModel);
  for (size_t i = 0; i < ids.size(); ++i)
    w.store.tokenEmbedding.rowTo(ids[i], &x(static_cast<Eigen::Index>(i), 0));
  if (c.family != Seq2SeqFamily::T5 && c.scaleEmbedding) x *= std::sqrt(static_cast<float>(c.base.dModel));
  return x;
}

/// The token with the largest logit (lm_head + final_logits_bias) at the pass's row.
int predictedToken(Seq2SeqPass& p, const Mat& xs, const Mat& xt) {
  Eigen::RowVectorXf row;
  p.target = 0;
  seq2seqLogitGradient(p, xs, xt, nullptr, &row);
  LinearWeight head;
  head.w = p.weights.lmHead;
  head.b = p.weights.finalLogitsBias;
  Mat logits;
  linear(Mat(row), head, logits);
  Eigen::Index best = 0;
  logits.row(0).maxCoeff(&best);
  return static_cast<int>(best);
}

Vec rowDotsOf(const Mat& a, const Mat& b) { return a.cwiseProduct(b).rowwise().sum(); }

}  // namespace

Result<Seq2SeqGradientAttribution> seq2seqGradientAttribution(const Seq2SeqConfig& c, const Seq2SeqWeights& w,
                                                              const std::vector<int>& sourceIds,
                                                              const std::vector<int>& decoderIds, int target,
                                                              const GradientOptions& o,
                                                              const std::string& src,
                                                              const ProgressFn& progress) {
  if (auto st = checkSeq2SeqRequest(c, sourceIds, decoderIds, target, o, src); !st) return st.error();
  const int ns = static_cast<int>(sourceIds.size()), nt = static_cast<int>(decoderIds.size());
  Seq2SeqPass p{c, w, target, o.position < 0 ? nt - 1 : o.position, {}, {}};
  if (p.t5()) {  // T5Attention.compute_bias: constant in the embeddings
    relativePositionBias(w.encoderRelativeBias, 0, ns, ns, true, c.relativeMaxDistance, p.encoderBias);
    relativePositionBias(w.decoderRelativeBias, 0, nt, nt, false, c.relativeMaxDistance, p.decoderBias);
  }
  const Mat xs = inputEmbeddings(c, w, sourceIds), xt = inputEmbeddings(c, w, decoderIds);
  if (target < 0) p.target = predictedToken(p, xs, xt);
  Seq2SeqGradientAttribution r;
  r.target = p.target;
  r.position = p.position;
  r.encoderLayers = c.encoderLayers, r.decoderLayers = c.decoderLayers;
  r.encoderHeads = c.encoderHeads, r.decoderHeads = c.decoderHeads;
  Seq2SeqLogitGrads g;
  if (o.attention) g.encoder = &r.attnGradEncoder, g.decoder = &r.attnGradDecoder, g.cross = &r.attnGradCross;
  r.targetLogit = seq2seqLogitGradient(p, xs, xt, &g);
  r.sourceGradient = g.dSource;
  r.targetGradient = g.dTarget;
  r.gradXInputSource = rowDotsOf(r.sourceGradient, xs);
  r.gradXInputTarget = rowDotsOf(r.targetGradient, xt);
  if (!o.integrated) return r;
  r.baselineLogit = seq2seqLogitGradient(p, Mat::Zero(ns, xs.cols()), Mat::Zero(nt, xt.cols()), nullptr);
  // Integrated gradients (Sundararajan et al. 2017, eq. 3) from the zero embedding of both
  // stacks: x * (1/m) sum_{k=1..m} dF(k/m x)/dx; the k = m term is the gradient at the input.
  Mat sumS = r.sourceGradient, sumT = r.targetGradient;
  Seq2SeqLogitGrads step;
  for (int k = 1; k < o.steps; ++k) {
    if (progress && !progress(static_cast<double>(k) / o.steps, "integrated gradients"))
      return Error{src + ": cancelled"};
    const float alpha = static_cast<float>(k) / static_cast<float>(o.steps);
    seq2seqLogitGradient(p, alpha * xs, alpha * xt, &step);
    sumS += step.dSource;
    sumT += step.dTarget;
  }
  r.integratedSource = rowDotsOf(sumS, xs) / static_cast<float>(o.steps);
  r.integratedTarget = rowDotsOf(sumT, xt) / static_cast<float>(o.steps);
  if (progress && !progress(1.0, "done")) return Error{src + ": cancelled"};
  return r;
}

}  // namespace attn::models
