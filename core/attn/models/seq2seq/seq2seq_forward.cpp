#include "attn/models/seq2seq/seq2seq_forward.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "attn/cpu/tiled_attention.h"
#include "attn/models/nn_ops.h"

namespace attn::models {
namespace {

/// Appends `rows` below `m` (a cache that grows a row block at a time).
void appendRows(Mat& m, const Mat& rows) {
  const Eigen::Index t = m.rows();
  if (t == 0) {
    m = rows;
    return;
  }
  m.conservativeResize(t + rows.rows(), Eigen::NoChange);
  m.bottomRows(rows.rows()) = rows;
}

/// Appends the new query rows of a causal map: earlier rows gain zero columns (keys they never saw).
void appendCausalRows(Mat& map, const Mat& rows) {
  const Eigen::Index t = map.rows(), n = rows.cols();
  Mat grown = Mat::Zero(n, n);
  if (t > 0) grown.topLeftCorner(t, t) = map;
  grown.bottomRows(rows.rows()) = rows;
  map = std::move(grown);
}

Status checkIds(const Seq2SeqConfig& c, const std::vector<int>& ids, int first, const char* what,
                const std::string& src) {
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= c.base.vocabSize)
      return Error{fmt::format("{}: {} token id {} at position {} is outside the vocabulary (vocab_size {})",
                               src, what, ids[i], first + static_cast<int>(i), c.base.vocabSize)};
  const int64_t end = int64_t{first} + static_cast<int64_t>(ids.size());
  if (end > c.maxPositions)
    return Error{fmt::format("{}: the {} has {} tokens but max_position_embeddings allows {}", src, what, end,
                             c.maxPositions)};
  return okStatus();
}

/// Per-row entropy (nats) of a weights matrix, over the nonzero cells.
Vec mapRowEntropy(const Mat& w) {
  Vec e(w.rows());
  for (Eigen::Index i = 0; i < w.rows(); ++i) {
    double h = 0;
    for (Eigen::Index j = 0; j < w.cols(); ++j)
      if (w(i, j) > 0) h -= static_cast<double>(w(i, j)) * std::log(static_cast<double>(w(i, j)));
    e(i) = static_cast<float>(h);
  }
  return e;
}

/// One layer's maps as an engine result; `mask` already bound.
AttentionResult layerResult(const std::vector<Mat>& maps, const Mat& concat, const Mat& out, int headDim,
                            const std::vector<std::string>& queries, const std::vector<std::string>& keys,
                            const Mask& mask) {
  AttentionResult r;
  r.queryTokens = queries;
  r.keyTokens = keys;
  r.heads.resize(maps.size());
  for (size_t h = 0; h < maps.size(); ++h) {
    HeadResult& hr = r.heads[h];
    hr.weights = maps[h];
    hr.entropy = mapRowEntropy(maps[h]);
    hr.output = concat.middleCols(static_cast<Eigen::Index>(h) * headDim, headDim);
  }
  r.concatOutput = concat;
  r.output = out;
  r.mask = mask;
  r.backendUsed = "cpu";
  r.execUsed = "naive";
  return r;
}

}  // namespace

void seq2seqAttention(const Mat& q, const Mat& k, const Mat& v, int heads, float scale, int causalFirst,
                      Mat& concat, std::vector<Mat>& maps, const std::vector<Mat>* bias) {
  const Eigen::Index m = q.rows(), n = k.rows(), hd = q.cols() / heads;
  concat.resize(m, q.cols());
  maps.assign(static_cast<size_t>(heads), Mat());
#pragma omp parallel for schedule(dynamic, 1) if (heads > 1 && m * n > 4096)
  for (int h = 0; h < heads; ++h) {
    const Eigen::Index c0 = static_cast<Eigen::Index>(h) * hd;
    Mat& s = maps[static_cast<size_t>(h)];
    s.noalias() = q.middleCols(c0, hd) * k.middleCols(c0, hd).transpose();
    if (scale != 1.0f) s *= scale;
    if (bias) s += (*bias)[static_cast<size_t>(h)];
    if (causalFirst >= 0)
      for (Eigen::Index i = 0; i < m; ++i)
        for (Eigen::Index j = causalFirst + i + 1; j < n; ++j)
          s(i, j) = -std::numeric_limits<float>::infinity();
    RowStats st;
    softmaxRowsInPlace(s, st);  // masked weights exactly 0
    concat.middleCols(c0, hd).noalias() = s * v.middleCols(c0, hd);
  }
}

Seq2SeqGraph seq2seqGraph(const Seq2SeqConfig& c) {
  return c.family == Seq2SeqFamily::T5 ? t5Seq2SeqGraph() : bartSeq2SeqGraph();
}

Status encodeSource(const Seq2SeqConfig& c, const Seq2SeqWeights& w, const std::vector<int>& ids,
                    const std::string& src, Seq2SeqState& s) {
  if (ids.empty()) return Error{src + ": nothing to translate: the source has no tokens"};
  if (auto st = checkIds(c, ids, 0, "source", src); !st) return st;
  const Seq2SeqGraph g = seq2seqGraph(c);
  s = Seq2SeqState{};
  s.sourceIds = ids;
  Mat h;
  g.embed(c, w, false, ids, 0, h);
  for (int l = 0; l < c.encoderLayers; ++l) g.encoderLayer(c, w, l, h, s);
  if (g.stackEnd) g.stackEnd(c, w, false, h);
  s.encoderOut = std::move(h);
  s.decoder.resize(static_cast<size_t>(c.decoderLayers));
  for (int l = 0; l < c.decoderLayers; ++l) {  // cross-attention keys and values, once per source
    const DecoderLayerWeights& D = w.decoder[static_cast<size_t>(l)];
    linear(s.encoderOut, D.crossK, s.decoder[static_cast<size_t>(l)].crossK);
    linear(s.encoderOut, D.crossV, s.decoder[static_cast<size_t>(l)].crossV);
  }
  return okStatus();
}

Status decodeRows(const Seq2SeqConfig& c, const Seq2SeqWeights& w, const std::vector<int>& ids, bool lastOnly,
                  const std::string& src, Seq2SeqState& s, Mat& logits) {
  if (s.decoder.empty()) return Error{src + ": the decoder ran before the encoder"};
  if (ids.empty()) return Error{src + ": nothing to decode: the target has no tokens"};
  const int first = static_cast<int>(s.decoderIds.size());
  if (auto st = checkIds(c, ids, first, "target", src); !st) return st;
  const Seq2SeqGraph g = seq2seqGraph(c);
  Mat h;
  g.embed(c, w, true, ids, first, h);
  for (int l = 0; l < c.decoderLayers; ++l) g.decoderLayer(c, w, l, first, h, s);
  if (g.stackEnd) g.stackEnd(c, w, true, h);
  if (c.lmHeadScale != 1.0f) h *= c.lmHeadScale;
  s.decoderIds.insert(s.decoderIds.end(), ids.begin(), ids.end());
  LinearWeight head;
  head.w = w.lmHead;
  head.b = w.finalLogitsBias;  // [1, V]: read as a row
  if (lastOnly)
    linear(h.bottomRows(1), head, logits);
  else
    linear(h, head, logits);
  return okStatus();
}

Seq2SeqAttention seq2seqResults(const Seq2SeqConfig& c, const Seq2SeqState& s,
                                const std::vector<std::string>& sourceTokens,
                                const std::vector<std::string>& targetTokens) {
  Seq2SeqAttention out;
  const int ns = static_cast<int>(s.sourceIds.size()), nt = static_cast<int>(s.decoderIds.size());
  Mask none;
  Mask causal;
  if (auto m = Mask::parse("causal"); m) {
    if (auto b = m->bind(nt, nt, targetTokens); b) causal = std::move(*b);
  }
  for (int l = 0; l < c.encoderLayers; ++l)
    out.encoder.push_back(layerResult(
        s.encoderMaps[static_cast<size_t>(l)], s.encoderConcat[static_cast<size_t>(l)],
        s.encoderAttnOut[static_cast<size_t>(l)], c.headDim(false), sourceTokens, sourceTokens, none));
  for (int l = 0; l < c.decoderLayers; ++l) {
    const DecoderLayerCache& d = s.decoder[static_cast<size_t>(l)];
    out.decoder.push_back(layerResult(d.selfMaps, d.selfConcat, d.selfOut, c.headDim(true), targetTokens,
                                      targetTokens, causal));
    out.cross.push_back(layerResult(d.crossMaps, d.crossConcat, d.crossOut, c.headDim(true), targetTokens,
                                    sourceTokens, none));
  }
  (void)ns;
  return out;
}

/// Records a decoder layer's new rows (families call it after each attention).
void recordDecoderRows(DecoderLayerCache& d, const std::vector<Mat>& selfMaps, const Mat& selfConcat,
                       const Mat& selfOut, const std::vector<Mat>& crossMaps, const Mat& crossConcat,
                       const Mat& crossOut) {
  if (d.selfMaps.size() != selfMaps.size()) d.selfMaps.assign(selfMaps.size(), Mat());
  if (d.crossMaps.size() != crossMaps.size()) d.crossMaps.assign(crossMaps.size(), Mat());
  for (size_t h = 0; h < selfMaps.size(); ++h) appendCausalRows(d.selfMaps[h], selfMaps[h]);
  for (size_t h = 0; h < crossMaps.size(); ++h) appendRows(d.crossMaps[h], crossMaps[h]);
  appendRows(d.selfConcat, selfConcat);
  appendRows(d.selfOut, selfOut);
  appendRows(d.crossConcat, crossConcat);
  appendRows(d.crossOut, crossOut);
}

void appendCacheRows(Mat& cache, const Mat& rows) { appendRows(cache, rows); }

}  // namespace attn::models
