#include "attn/models/gradients/gradient_attribution.h"

#include <fmt/format.h>

#include <cmath>

#include "attn/models/gradients/logit_gradient.h"
#include "attn/models/transformer_forward.h"

namespace attn::models {

Eigen::RowVectorXf lmHeadRow(const ModelWeights& w, int target) {
  Eigen::RowVectorXf row(w.lmHead.cols);
  w.lmHead.rowTo(target, row.data());
  return row;
}

namespace {

/// Mean cross-entropy of the lm_head's logits of `normed` [r, d] (the final norm's output at
/// the rows read) against `targets`; with dNormed its gradient: (softmax - onehot) W / r.
float nextTokenLossSeed(const ModelWeights& w, const Mat& normed, const std::vector<int>& targets,
                        Mat* dNormed) {
  LinearWeight head;
  head.w = w.lmHead;
  Mat logits;
  linear(normed, head, logits);
  const Eigen::Index r = logits.rows();
  double loss = 0;
  for (Eigen::Index i = 0; i < r; ++i) {
    auto row = logits.row(i);
    const float mx = row.maxCoeff();
    row.array() = (row.array() - mx).exp();
    const double sum = row.sum();
    const int t = targets[static_cast<size_t>(i)];
    loss -= std::log(static_cast<double>(row(t)) / sum);
    row /= static_cast<float>(sum);  // softmax
    row(t) -= 1.0f;
  }
  if (dNormed) {
    logits /= static_cast<float>(r);
    linearBackward(logits, head, *dNormed);
  }
  return static_cast<float>(loss / static_cast<double>(r));
}

}  // namespace

float causalReadout(const LogitGradientPass& g, const Mat& h, Mat* dh, NormTapedFn norm,
                    NormBackwardFn normBackward) {
  const ModelConfig& c = g.config;
  const std::vector<int> single{g.position};
  const std::vector<int>& rows = g.lossRows ? *g.lossRows : single;
  Mat x(static_cast<Eigen::Index>(rows.size()), h.cols()), y;
  for (size_t i = 0; i < rows.size(); ++i) x.row(static_cast<Eigen::Index>(i)) = h.row(rows[i]);
  NormTape tape;
  norm(x, g.weights.finalNorm, c.normEps, y, tape);
  Mat dy;
  float value = 0;
  if (g.lossRows) {
    value = nextTokenLossSeed(g.weights, y, *g.lossTargets, dh ? &dy : nullptr);
  } else {
    const Eigen::RowVectorXf head = lmHeadRow(g.weights, g.target);
    value = y.row(0).dot(head);
    dy = head;
  }
  if (!dh) return value;
  Mat dx;
  normBackward(dy, g.weights.finalNorm, tape, dx);
  *dh = Mat::Zero(h.rows(), h.cols());
  for (size_t i = 0; i < rows.size(); ++i) dh->row(rows[i]) += dx.row(static_cast<Eigen::Index>(i));
  return value;
}

Mat headGateGradients(const GradientAttribution& a) {
  Mat gates = Mat::Zero(a.layers, a.heads);
  for (int l = 0; l < a.layers; ++l)
    for (int h = 0; h < a.heads; ++h) {
      const size_t i = static_cast<size_t>(l) * static_cast<size_t>(a.heads) + static_cast<size_t>(h);
      if (i < a.attnGrad.size()) gates(l, h) = a.attnGrad[i].sum();
    }
  return gates;
}

namespace {

Result<LogitGradientFn> familyBackward(const ModelConfig& c, const ModelWeights& w, const std::string& src) {
  const bool hasHead = !w.lmHead.empty();
  if (c.family == Family::Gpt2 && hasHead) return &gpt2LogitGradient;
  if (c.family == Family::Llama && hasHead) return &llamaLogitGradient;
  if (c.family == Family::Bert && w.mlmHead.present()) return &bertLogitGradient;
  return Error{fmt::format(
      "{}: gradients have a backward pass for causal language models of the GPT-2 and Llama families (gpt2, "
      "llama, qwen2, mistral) and BERT-style models with their masked-LM head; this is a {} model ({}{})",
      src, c.modelType, familyName(c.family),
      c.family == Family::Bert ? ", without the masked-LM head" : "")};
}

Status checkGradientRequest(const ModelConfig& c, const Encoding& enc, int target, const GradientOptions& o,
                            const std::string& src) {
  if (auto st = checkModelEncoding(c, enc, src); !st) return st;
  if (o.objective == GradientObjective::NextTokenLoss && c.family == Family::Bert)
    return Error{src +
                 ": the next-token loss is a causal model's; a masked-LM model's gradients explain a logit "
                 "at a mask token"};
  if (o.objective == GradientObjective::TargetLogit && (target < 0 || target >= c.vocabSize))
    return Error{fmt::format("{}: target token id {} is outside the vocabulary (0 to {})", src, target,
                             c.vocabSize - 1)};
  if (o.steps < 1 || o.steps > 4096)
    return Error{fmt::format("{}: integrated gradients need 1 to 4096 steps (got {})", src, o.steps)};
  return okStatus();
}

/// GradientOptions::position resolved: the last token (causal) or the first mask token.
Result<int> logitPosition(const ModelConfig& c, const Encoding& enc, int asked, const std::string& src) {
  const int n = enc.size();
  int p = asked;
  if (p < 0 && c.family != Family::Bert) p = n - 1;
  if (p < 0) {
    for (int i = 0; i < n && p < 0; ++i)
      if (enc.ids[static_cast<size_t>(i)] == c.maskTokenId) p = i;
    if (p < 0)
      return Error{src +
                   ": the text has no mask token; a masked-LM model's logit is read at one (or give the "
                   "position)"};
  }
  if (p >= n) return Error{fmt::format("{}: position {} is outside the text (0 to {})", src, p, n - 1)};
  if (!enc.attention.empty() && enc.attention[static_cast<size_t>(p)] == 0)
    return Error{fmt::format("{}: position {} is padding; the target logit is read there", src, p)};
  return p;
}

/// Per token: sum over the embedding dimension of a [n, d] * b [n, d].
Vec rowDots(const Mat& a, const Mat& b) { return a.cwiseProduct(b).rowwise().sum(); }

}  // namespace

Result<GradientAttribution> gradientAttribution(const ModelConfig& c, const ModelWeights& w,
                                                const Encoding& enc, int target, const GradientOptions& o,
                                                const std::string& src, const ProgressFn& progress) {
  auto backward = familyBackward(c, w, src);
  if (!backward) return backward.error();
  if (auto st = checkGradientRequest(c, enc, target, o, src); !st) return st.error();
  const bool loss = o.objective == GradientObjective::NextTokenLoss;
  auto position = loss ? Result<int>(enc.size() - 1) : logitPosition(c, enc, o.position, src);
  if (!position) return position.error();
  std::vector<int> lossRows, lossTargets;
  if (loss) {
    for (int i = 0; i + 1 < enc.size(); ++i)
      if (enc.attention.empty() ||
          (enc.attention[static_cast<size_t>(i)] && enc.attention[static_cast<size_t>(i) + 1])) {
        lossRows.push_back(i);
        lossTargets.push_back(enc.ids[static_cast<size_t>(i) + 1]);
      }
    if (lossRows.empty()) return Error{src + ": the next-token loss needs a text of at least 2 real tokens"};
  }
  auto mask = modelMask(c, enc);
  if (!mask) return Error{src + ": " + mask.error().message};
  const int n = enc.size();
  const std::vector<uint8_t> keep = mask->isNone() ? std::vector<uint8_t>{} : mask->bitmap(n, n);
  const LogitGradientPass pass{
      c, w, keep, target, *position, &enc, loss ? &lossRows : nullptr, loss ? &lossTargets : nullptr};
  Mat emb(n, c.dModel);
  for (int i = 0; i < n; ++i) w.tokenEmbedding.rowTo(enc.ids[static_cast<size_t>(i)], &emb(i, 0));

  GradientAttribution r;
  r.objective = o.objective;
  r.target = loss ? -1 : target;
  r.position = *position;
  r.layers = c.layers;
  r.heads = c.heads;
  r.targetLogit = (*backward)(pass, emb, &r.inputGradient, o.attention ? &r.attnGrad : nullptr);
  r.gradXInput = rowDots(r.inputGradient, emb);
  if (!o.integrated) return r;
  r.baselineLogit = (*backward)(pass, Mat::Zero(n, c.dModel), nullptr, nullptr);
  // Integrated gradients (Sundararajan et al. 2017, eq. 3) from the zero baseline:
  // x * (1/m) sum_{k=1..m} dF(k/m x)/dx; the k = m term is the gradient at the input itself.
  Mat sum = r.inputGradient, grad;
  for (int k = 1; k < o.steps; ++k) {
    if (progress && !progress(static_cast<double>(k) / o.steps, "integrated gradients"))
      return Error{src + ": cancelled"};
    const float alpha = static_cast<float>(k) / static_cast<float>(o.steps);
    (*backward)(pass, alpha * emb, &grad, nullptr);
    sum += grad;
  }
  r.integratedGradients = rowDots(sum, emb) / static_cast<float>(o.steps);
  if (progress && !progress(1.0, "done")) return Error{src + ": cancelled"};
  return r;
}

}  // namespace attn::models
