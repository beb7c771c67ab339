#include "attn/models/seq2seq/seq2seq_forward.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/cpu/tiled_attention.h"
#include "attn/models/nn_ops.h"
#include "attn/models/seq2seq/relative_position.h"

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
                      Mat& concat, std::vector<Mat>& maps, const std::vector<Mat>* bias,
                      const Seq2SeqEditsAt& edits) {
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
    if (edits.heads && !edits.heads->empty()) {
      editedHeadSoftmax((*edits.heads)[static_cast<size_t>(h)], edits.firstRow, causalFirst, s);
    } else {
      RowStats st;
      softmaxRowsInPlace(s, st);  // masked weights exactly 0
    }
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
  auto edits = std::move(s.edits);
  const bool keepQkv = s.keepQkv;
  s = Seq2SeqState{};
  s.edits = std::move(edits);
  s.keepQkv = keepQkv;
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

Status decodeHidden(const Seq2SeqConfig& c, const Seq2SeqWeights& w, const std::vector<int>& ids,
                    const std::string& src, Seq2SeqState& s, Mat& h) {
  if (s.decoder.empty()) return Error{src + ": the decoder ran before the encoder"};
  if (ids.empty()) return Error{src + ": nothing to decode: the target has no tokens"};
  const int first = static_cast<int>(s.decoderIds.size());
  if (auto st = checkIds(c, ids, first, "target", src); !st) return st;
  const Seq2SeqGraph g = seq2seqGraph(c);
  g.embed(c, w, true, ids, first, h);
  for (int l = 0; l < c.decoderLayers; ++l) g.decoderLayer(c, w, l, first, h, s);
  if (g.stackEnd) g.stackEnd(c, w, true, h);
  if (c.lmHeadScale != 1.0f) h *= c.lmHeadScale;
  s.decoderIds.insert(s.decoderIds.end(), ids.begin(), ids.end());
  return okStatus();
}

Status decodeRows(const Seq2SeqConfig& c, const Seq2SeqWeights& w, const std::vector<int>& ids, bool lastOnly,
                  const std::string& src, Seq2SeqState& s, Mat& logits) {
  Mat h;
  if (auto st = decodeHidden(c, w, ids, src, s, h); !st) return st;
  LinearWeight head;
  head.w = w.lmHead;
  head.b = w.finalLogitsBias;  // [1, V]: read as a row
  if (lastOnly)
    linear(h.bottomRows(1), head, logits);
  else
    linear(h, head, logits);
  return okStatus();
}

Seq2SeqEditsAt seq2seqEditsAt(const Seq2SeqState& s, Seq2SeqStack stack, int layer, int firstRow) {
  if (!s.edits) return {};
  const auto& layers = s.edits->of(stack);
  if (layer < 0 || static_cast<size_t>(layer) >= layers.size()) return {};
  return {&layers[static_cast<size_t>(layer)], firstRow};
}

void keepEncoderQkv(Seq2SeqState& s, const Mat& q, const Mat& k, const Mat& v) {
  if (!s.keepQkv) return;
  s.encoderQ.push_back(q);
  s.encoderK.push_back(k);
  s.encoderV.push_back(v);
}

void keepDecoderQueries(const Seq2SeqState& s, DecoderLayerCache& d, const Mat& selfQ, const Mat& crossQ) {
  if (!s.keepQkv) return;
  appendRows(d.selfQ, selfQ);
  appendRows(d.crossQ, crossQ);
}

Seq2SeqAttention seq2seqResults(const Seq2SeqConfig& c, const Seq2SeqWeights& w, const Seq2SeqState& s,
                                const std::vector<std::string>& sourceTokens,
                                const std::vector<std::string>& targetTokens) {
  Seq2SeqAttention out;
  const bool t5 = c.family == Seq2SeqFamily::T5;
  out.scaledScores = !t5;
  const int ns = static_cast<int>(s.sourceIds.size()), nt = static_cast<int>(s.decoderIds.size());
  Mask none;
  Mask causal;
  if (auto m = Mask::parse("causal"); m) {
    if (auto b = m->bind(nt, nt, targetTokens); b) causal = std::move(*b);
  }
  // T5's bias over the whole target (generation fed it a row at a time).
  std::vector<Mat> decoderBias;
  if (s.keepQkv && t5 && nt > 0)
    relativePositionBias(w.decoderRelativeBias, 0, nt, nt, false, c.relativeMaxDistance, decoderBias);
  const auto withQkv = [&](AttentionResult& r, const Mat& q, const Mat& k, const Mat& v, int hd,
                           const std::vector<Mat>* bias) {
    if (!s.keepQkv || q.rows() == 0) return;
    for (size_t h = 0; h < r.heads.size(); ++h) {
      const Eigen::Index c0 = static_cast<Eigen::Index>(h) * hd;
      r.heads[h].q = q.middleCols(c0, hd);
      r.heads[h].k = k.middleCols(c0, hd);
      r.heads[h].v = v.middleCols(c0, hd);
      if (bias && h < bias->size()) r.heads[h].logitBias = (*bias)[h];
    }
  };
  for (int l = 0; l < c.encoderLayers; ++l) {
    const size_t L = static_cast<size_t>(l);
    out.encoder.push_back(layerResult(s.encoderMaps[L], s.encoderConcat[L], s.encoderAttnOut[L],
                                      c.headDim(false), sourceTokens, sourceTokens, none));
    if (L < s.encoderQ.size())
      withQkv(out.encoder.back(), s.encoderQ[L], s.encoderK[L], s.encoderV[L], c.headDim(false),
              t5 ? &s.encoderBias : nullptr);
  }
  for (int l = 0; l < c.decoderLayers; ++l) {
    const DecoderLayerCache& d = s.decoder[static_cast<size_t>(l)];
    out.decoder.push_back(layerResult(d.selfMaps, d.selfConcat, d.selfOut, c.headDim(true), targetTokens,
                                      targetTokens, causal));
    withQkv(out.decoder.back(), d.selfQ, d.selfK, d.selfV, c.headDim(true), t5 ? &decoderBias : nullptr);
    out.cross.push_back(layerResult(d.crossMaps, d.crossConcat, d.crossOut, c.headDim(true), targetTokens,
                                    sourceTokens, none));
    withQkv(out.cross.back(), d.crossQ, d.crossK, d.crossV, c.headDim(true), nullptr);
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

// ---------------------------------------------------------------------------
// Interventions (seq2seq_interventions.h): kept here, beside the attention that applies them.

namespace {

constexpr Seq2SeqStack kStacks[] = {Seq2SeqStack::Encoder, Seq2SeqStack::Decoder, Seq2SeqStack::Cross};

Error badStack(std::string_view spec, std::string_view why) {
  return Error{
      fmt::format("--intervene '{}': {} (expected STACK:KIND:L.H with STACK encoder, decoder or cross, e.g. "
                  "encoder:ablate:1.2, cross:temperature:2.1=2)",
                  spec, why)};
}

}  // namespace

std::string_view seq2seqStackName(Seq2SeqStack s) {
  switch (s) {
    case Seq2SeqStack::Encoder:
      return "encoder";
    case Seq2SeqStack::Decoder:
      return "decoder";
    case Seq2SeqStack::Cross:
      return "cross";
  }
  return "?";
}

std::string_view seq2seqStackTitle(Seq2SeqStack s) {
  switch (s) {
    case Seq2SeqStack::Encoder:
      return "encoder self-attention";
    case Seq2SeqStack::Decoder:
      return "decoder self-attention";
    case Seq2SeqStack::Cross:
      return "cross-attention";
  }
  return "?";
}

bool hasSeq2SeqStackPrefix(std::string_view spec) {
  for (Seq2SeqStack s : kStacks)
    if (spec.size() > seq2seqStackName(s).size() &&
        spec.substr(0, seq2seqStackName(s).size()) == seq2seqStackName(s) &&
        spec[seq2seqStackName(s).size()] == ':')
      return true;
  return false;
}

Result<Seq2SeqIntervention> parseSeq2SeqIntervention(std::string_view spec) {
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos) return badStack(spec, "no stack");
  const std::string_view stack = spec.substr(0, colon);
  Seq2SeqIntervention iv;
  bool known = false;
  for (Seq2SeqStack s : kStacks)
    if (stack == seq2seqStackName(s)) iv.stack = s, known = true;
  if (!known) return badStack(spec, fmt::format("unknown stack '{}'", stack));
  const std::string_view rest = spec.substr(colon + 1);
  auto head = parseIntervention(rest);
  if (!head) {  // its message names the spec without the stack: name the whole spec
    std::string message = head.error().message;
    const std::string inner = fmt::format("'{}'", rest);
    if (const size_t at = message.find(inner); at != std::string::npos)
      message.replace(at, inner.size(), fmt::format("'{}'", spec));
    return Error{message};
  }
  iv.head = std::move(*head);
  return iv;
}

std::string formatSeq2SeqIntervention(const Seq2SeqIntervention& iv) {
  return fmt::format("{}:{}", seq2seqStackName(iv.stack), formatIntervention(iv.head));
}

std::string formatSeq2SeqInterventions(const std::vector<Seq2SeqIntervention>& ivs) {
  std::string out;
  for (const auto& iv : ivs) out += (out.empty() ? "" : ", ") + formatSeq2SeqIntervention(iv);
  return out;
}

Result<Seq2SeqEdits> seq2seqEdits(const Seq2SeqConfig& c, const std::vector<Seq2SeqIntervention>& ivs,
                                  const std::string& src) {
  Seq2SeqEdits out;
  for (Seq2SeqStack stack : kStacks) {
    const bool enc = stack == Seq2SeqStack::Encoder;
    const int layers = enc ? c.encoderLayers : c.decoderLayers, heads = enc ? c.encoderHeads : c.decoderHeads;
    std::vector<HeadIntervention> plain;  // ablate, uniform, temperature: headEdits
    for (const auto& iv : ivs) {
      if (iv.stack != stack) continue;
      const std::string what = formatSeq2SeqIntervention(iv);
      if (iv.head.layer < 0 || iv.head.layer >= layers)
        return Error{fmt::format("{}: intervention '{}': layer {} does not exist (the {} has layers 1 to {})",
                                 src, what, iv.head.layer + 1, seq2seqStackTitle(stack), layers)};
      if (iv.head.head < 0 || iv.head.head >= heads)
        return Error{fmt::format("{}: intervention '{}': head {} does not exist (the {} has heads 1 to {})",
                                 src, what, iv.head.head + 1, seq2seqStackTitle(stack), heads)};
      if (iv.head.kind != InterventionKind::Mask) plain.push_back(iv.head);
    }
    auto edits = headEdits(layers, heads, Encoding{}, {}, plain, src);
    if (!edits) return edits.error();
    auto& target = stack == Seq2SeqStack::Encoder   ? out.encoder
                   : stack == Seq2SeqStack::Decoder ? out.decoder
                                                    : out.cross;
    target.resize(edits->size());
    for (size_t l = 0; l < edits->size(); ++l)
      for (const HeadEdit& e : (*edits)[l]) target[l].push_back({e, Mask()});
    for (const auto& iv : ivs) {
      if (iv.stack != stack || iv.head.kind != InterventionKind::Mask) continue;
      auto m = Mask::parse(iv.head.mask);
      bool tokens = false;  // a term that reads the key tokens (padding) or the file's bitmap (custom)
      if (m)
        for (const MaskTerm& t : m->terms())
          tokens =
              tokens || t.kind == MaskTerm::Kind::Custom || (t.kind == MaskTerm::Kind::Padding && t.a < 0);
      if (!m || tokens || m->needsGridColumns())
        return Error{fmt::format(
            "{}: intervention '{}': mask '{}': {}", src, formatSeq2SeqIntervention(iv), iv.head.mask,
            m ? "needs tokens, a bitmap or a patch grid, which an encoder-decoder run does not "
                "have"
              : m.error().message)};
      auto& layer = target[static_cast<size_t>(iv.head.layer)];
      if (layer.empty()) layer.resize(static_cast<size_t>(heads));
      Mask& mask = layer[static_cast<size_t>(iv.head.head)].mask;
      mask = mask.isNone() ? *Mask::parse(iv.head.mask) : mask + *Mask::parse(iv.head.mask);
    }
  }
  return out;
}

void editedHeadSoftmax(const Seq2SeqHeadEdit& e, int firstRow, int causalFirst, Mat& s) {
  const Eigen::Index m = s.rows(), n = s.cols();
  constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
  Mask bound = e.mask;  // procedural terms answer allowed() unbound too (a global index past the map: none)
  if (!e.mask.isNone())
    if (auto b = e.mask.bind(firstRow + static_cast<int>(m), static_cast<int>(n), {}); b)
      bound = std::move(*b);
  const auto allowed = [&](Eigen::Index i, Eigen::Index j) {
    if (causalFirst >= 0 && j > causalFirst + i) return false;
    return bound.isNone() || bound.allowed(firstRow + static_cast<int>(i), static_cast<int>(j));
  };
  if (!bound.isNone())
    for (Eigen::Index i = 0; i < m; ++i)
      for (Eigen::Index j = 0; j < n; ++j)
        if (!allowed(i, j)) s(i, j) = kMinusInf;
  if (e.edit.invTemperature != 1.0f) s *= e.edit.invTemperature;  // -inf stays -inf (T > 0)
  RowStats st;
  softmaxRowsInPlace(s, st);  // masked weights exactly 0
  if (e.edit.uniform)         // 1 / (allowed keys) on each allowed key of a row
    for (Eigen::Index i = 0; i < m; ++i) {
      Eigen::Index count = 0;
      for (Eigen::Index j = 0; j < n; ++j) count += allowed(i, j) ? 1 : 0;
      for (Eigen::Index j = 0; j < n; ++j)
        s(i, j) = count > 0 && allowed(i, j) ? 1.0f / static_cast<float>(count) : 0.0f;
    }
  if (e.edit.zero) s.setZero();  // head_mask = 0: the probabilities times 0
}

std::vector<double> targetTokenProbabilities(const Mat& logits, const std::vector<int>& ids) {
  std::vector<double> p;
  for (size_t i = 0; i + 1 < ids.size() && static_cast<Eigen::Index>(i) < logits.rows(); ++i) {
    const int t = ids[i + 1];
    if (t < 0 || t >= logits.cols()) {
      p.push_back(0.0);
      continue;
    }
    const auto row = logits.row(static_cast<Eigen::Index>(i));
    const double mx = static_cast<double>(row.maxCoeff());
    double sum = 0;
    for (Eigen::Index j = 0; j < row.size(); ++j) sum += std::exp(static_cast<double>(row(j)) - mx);
    p.push_back(std::exp(static_cast<double>(row(t)) - mx) / sum);
  }
  return p;
}

}  // namespace attn::models
