#include "attn/models/generation/causal_decoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace attn::models {

CausalDecoder::CausalDecoder(const ModelConfig& c, const ModelWeights& w, int maxLength, std::string src)
    : c_(c), w_(w), maxLength_(maxLength), src_(std::move(src)) {
  if (c.family == Family::Llama)
    rope_ = ropeTable(std::max(maxLength, 1), c.headDim, c.ropeTheta, c.ropeScaling);
}

Status CausalDecoder::supports(const ModelConfig& c, const std::string& src) {
  if (c.family == Family::Gpt2 || c.family == Family::Llama) return okStatus();
  return Error{fmt::format(
      "{}: model_type {} is {} ({}): generation needs a causal language model (GPT-2 or the Llama "
      "family)",
      src, c.modelType, familyName(c.family),
      c.family == Family::Bert ? "bidirectional, it predicts masked tokens but does not write"
                               : "a vision model")};
}

void CausalDecoder::attend(CausalState& s, int l, int first, const Mat& q, Mat& concat) const {
  const int H = c_.heads, KV = c_.kvHeads > 0 ? c_.kvHeads : c_.heads, hd = c_.headDim;
  const int m = static_cast<int>(q.rows()), t = first + m;
  const Mat& K = s.keys[static_cast<size_t>(l)];
  const Mat& V = s.values[static_cast<size_t>(l)];
  float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  if (c_.family == Family::Gpt2 && c_.scaleByInverseLayer) scale /= static_cast<float>(l + 1);
  concat.resize(m, static_cast<int64_t>(H) * hd);
  Mat scores;
  for (int h = 0; h < H; ++h) {
    const int kv = h / (H / KV);  // transformers' repeat_kv: query head h reads kv head h / (H / KV)
    scores.noalias() = q.middleCols(static_cast<int64_t>(h) * hd, hd) *
                       K.middleCols(static_cast<int64_t>(kv) * hd, hd).transpose();
    std::vector<float>* rows = s.keepMaps ? &s.rows[static_cast<size_t>(l) * H + h] : nullptr;
    for (int i = 0; i < m; ++i) {
      const int pos = first + i;
      // Causal: keys 0..pos; Mistral's sliding window: at most slidingWindow back (pos - j < window).
      const int lo = c_.slidingWindow > 0 ? std::max(0, pos - c_.slidingWindow + 1) : 0;
      auto row = scores.row(i);
      float mx = -INFINITY;
      for (int j = lo; j <= pos; ++j) mx = std::max(mx, row(j) *= scale);
      float sum = 0.0f;
      for (int j = lo; j <= pos; ++j) sum += row(j) = std::exp(row(j) - mx);
      for (int j = 0; j < t; ++j) row(j) = j < lo || j > pos ? 0.0f : row(j) / sum;
      if (rows) rows->insert(rows->end(), row.data(), row.data() + pos + 1);
    }
    concat.middleCols(static_cast<int64_t>(h) * hd, hd).noalias() =
        scores.leftCols(t) * V.middleCols(static_cast<int64_t>(kv) * hd, hd);
  }
}

void CausalDecoder::layer(CausalState& s, int l, int first, Mat& h) const {
  const LayerWeights& L = w_.layers[static_cast<size_t>(l)];
  const int64_t d = c_.dModel;
  const int m = static_cast<int>(h.rows());
  Mat a, q, k, v, concat, o, u, g;
  if (c_.family == Family::Gpt2) {
    layerNorm(h, L.attnNorm, c_.normEps, a);
    Mat qkv;
    linear(a, L.qkv, qkv);
    q = qkv.leftCols(d), k = qkv.middleCols(d, d), v = qkv.rightCols(d);
  } else {
    rmsNorm(h, L.attnNorm, c_.normEps, a);
    linear(a, L.q, q);
    linear(a, L.k, k);
    linear(a, L.v, v);
    if (c_.qkRowsInterleaved) {
      deinterleaveHeads(q, c_.headDim);
      deinterleaveHeads(k, c_.headDim);
    }
    const RopeTable rows{rope_.cos.middleRows(first, m), rope_.sin.middleRows(first, m)};
    applyRope(q, c_.headDim, rows);
    applyRope(k, c_.headDim, rows);
  }
  for (Mat* cache : {&s.keys[static_cast<size_t>(l)], &s.values[static_cast<size_t>(l)]}) {
    const Mat& part = cache == &s.keys[static_cast<size_t>(l)] ? k : v;
    cache->conservativeResize(first + m, part.cols());
    cache->bottomRows(m) = part;
  }
  attend(s, l, first, q, concat);
  linear(concat, L.o, o);
  h += o;
  if (c_.family == Family::Gpt2) {
    layerNorm(h, L.mlpNorm, c_.normEps, a);
    linear(a, L.up, u);
    activate(u, c_.activation);
  } else {  // SwiGLU (Shazeer 2020, eq. 6): act(x W_gate) * x W_up
    rmsNorm(h, L.mlpNorm, c_.normEps, a);
    linear(a, L.up, u);
    linear(a, L.gate, g);
    activate(g, c_.activation);
    u.array() *= g.array();
  }
  linear(u, L.down, o);
  h += o;
}

Status CausalDecoder::feed(CausalState& s, const std::vector<int>& ids, std::vector<float>& logits) const {
  const int first = static_cast<int>(s.ids.size()), m = static_cast<int>(ids.size());
  if (m == 0) return Error{src_ + ": nothing to feed"};
  if (first + m > maxLength_)
    return Error{
        fmt::format("{}: {} tokens, but generation was set up for {} at most", src_, first + m, maxLength_)};
  const int64_t d = c_.dModel;
  Mat h(m, d);
  for (int i = 0; i < m; ++i) {
    const int id = ids[static_cast<size_t>(i)];
    if (id < 0 || id >= c_.vocabSize)
      return Error{
          fmt::format("{}: token id {} is outside the vocabulary (0 to {})", src_, id, c_.vocabSize - 1)};
    w_.tokenEmbedding.rowTo(id, &h(i, 0));
  }
  if (c_.family == Family::Gpt2) {  // learned absolute positions
    if (first + m > w_.positionEmbedding.rows)
      return Error{fmt::format("{}: {} tokens, but the model has {} positions", src_, first + m,
                               w_.positionEmbedding.rows)};
    h += w_.positionEmbedding.mat().middleRows(first + c_.positionOffset, m);
  }
  const size_t L = static_cast<size_t>(c_.layers);
  s.keys.resize(L), s.values.resize(L);
  if (s.keepMaps) s.rows.resize(L * static_cast<size_t>(c_.heads));
  for (int l = 0; l < c_.layers; ++l) layer(s, l, first, h);
  Mat last, out;
  if (c_.family == Family::Gpt2)
    layerNorm(h.bottomRows(1), w_.finalNorm, c_.normEps, last);
  else
    rmsNorm(h.bottomRows(1), w_.finalNorm, c_.normEps, last);
  LinearWeight head;
  head.w = w_.lmHead;
  linear(last, head, out);
  logits.assign(out.data(), out.data() + out.size());
  s.ids.insert(s.ids.end(), ids.begin(), ids.end());
  return okStatus();
}

Mat CausalDecoder::map(const CausalState& s, int layer, int head) const {
  const int t = static_cast<int>(s.ids.size());
  Mat out = Mat::Zero(t, t);
  if (!s.keepMaps) return out;
  const std::vector<float>& rows = s.rows[static_cast<size_t>(layer) * c_.heads + head];
  size_t at = 0;
  for (int i = 0; i < t && at + static_cast<size_t>(i) < rows.size(); ++i) {
    std::copy(rows.begin() + static_cast<std::ptrdiff_t>(at),
              rows.begin() + static_cast<std::ptrdiff_t>(at + i + 1), &out(i, 0));
    at += static_cast<size_t>(i) + 1;
  }
  return out;
}

}  // namespace attn::models
