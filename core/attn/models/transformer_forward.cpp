#include "attn/models/transformer_forward.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "attn/cpu/tiled_attention.h"
#include "attn/models/mlm_head.h"
#include "attn/models/next_token_loss.h"
#include "attn/models/nn_ops.h"

namespace attn::models {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

/// Multi-head attention of one layer on projected Q [n, H*hd], K, V [n, KV*hd]
/// (query head h reads kv head h / (H / KV), transformers' repeat_kv).
void attendHeads(const Mat& q, const Mat& k, const Mat& v, const ModelConfig& c, float scale,
                 const std::vector<uint8_t>& modelKeep, const RunOptions& opt, bool store, AttentionResult& res,
                 Mat& concat, const std::vector<HeadEdit>& edits) {
  const int n = static_cast<int>(q.rows()), H = c.heads, hd = c.headDim, group = c.heads / c.kvHeads;
  concat.resize(n, static_cast<Eigen::Index>(H) * hd);
  res.heads.assign(store ? static_cast<size_t>(H) : 0, HeadResult{});
  std::vector<Mat> scratch(static_cast<size_t>(H));
#pragma omp parallel for schedule(dynamic, 1)
  for (int h = 0; h < H; ++h) {
    const int kvh = h / group;
    const HeadEdit* edit = edits.empty() ? nullptr : &edits[static_cast<size_t>(h)];
    const std::vector<uint8_t>& keep = edit && !edit->keep.empty() ? edit->keep : modelKeep;
    const auto qh = q.middleCols(static_cast<Eigen::Index>(h) * hd, hd);
    const auto kh = k.middleCols(static_cast<Eigen::Index>(kvh) * hd, hd);
    const auto vh = v.middleCols(static_cast<Eigen::Index>(kvh) * hd, hd);
    Mat& s = scratch[static_cast<size_t>(h)];
    s.resize(n, n);
    s.noalias() = qh * kh.transpose();
    HeadResult* hr = store ? &res.heads[static_cast<size_t>(h)] : nullptr;
    if (hr && opt.keepLogits) hr->rawLogits = s;
    s *= scale;
    if (hr && opt.keepLogits) hr->scaledLogits = s;
    if (!keep.empty())
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          if (!keep[static_cast<size_t>(i) * static_cast<size_t>(n) + static_cast<size_t>(j)]) s(i, j) = kNegInf;
    if (hr && opt.keepLogits) hr->maskedLogits = s;
    if (edit && edit->invTemperature != 1.0f) s *= edit->invTemperature;  // -inf stays -inf (T > 0)
    RowStats st;
    softmaxRowsInPlace(s, st);  // masked weights exactly 0, entropy in the same pass
    if (edit && edit->uniform)  // 1 / (allowed keys) on every allowed key of the row
      for (int i = 0; i < n; ++i) {
        int allowed = n;
        if (!keep.empty()) allowed = static_cast<int>(std::count_if(
                               keep.begin() + static_cast<std::ptrdiff_t>(i) * n,
                               keep.begin() + static_cast<std::ptrdiff_t>(i + 1) * n, [](uint8_t b) { return b != 0; }));
        for (int j = 0; j < n; ++j)
          s(i, j) = allowed > 0 && (keep.empty() || keep[static_cast<size_t>(i) * static_cast<size_t>(n) +
                                                          static_cast<size_t>(j)])
                        ? 1.0f / static_cast<float>(allowed)
                        : 0.0f;
        st.entropy(i) = allowed > 0 ? std::log(static_cast<float>(allowed)) : 0.0f;
      }
    if (edit && edit->zero) {  // HF head_mask = 0: the head's probabilities times 0
      s.setZero();
      st.entropy.setZero();
    }
    concat.middleCols(static_cast<Eigen::Index>(h) * hd, hd).noalias() = s * vh;
    if (hr) {
      hr->output = concat.middleCols(static_cast<Eigen::Index>(h) * hd, hd);
      hr->entropy = std::move(st.entropy);
      hr->fullyMaskedRows = std::move(st.fullyMaskedRows);
      hr->weights = std::move(s);
      if (opt.keepQkv) {
        hr->q = qh;
        hr->k = kh;
        hr->v = vh;
      }
    }
  }
}

void topTokens(const Mat& logits, int k, const std::function<std::string(int)>& display,
               std::vector<std::vector<TopToken>>& out) {
  const int n = static_cast<int>(logits.rows()), V = static_cast<int>(logits.cols());
  k = std::min(k, V);
  out.assign(static_cast<size_t>(n), {});
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; ++i) {
    const float* l = &logits(i, 0);
    const float m = *std::max_element(l, l + V);
    double sum = 0;
    for (int j = 0; j < V; ++j) sum += std::exp(static_cast<double>(l[j]) - m);
    std::vector<int> idx(static_cast<size_t>(V));
    std::iota(idx.begin(), idx.end(), 0);
    std::partial_sort(idx.begin(), idx.begin() + k, idx.end(),
                      [l](int a, int b) { return l[a] != l[b] ? l[a] > l[b] : a < b; });
    auto& row = out[static_cast<size_t>(i)];
    for (int r = 0; r < k; ++r) {
      const int id = idx[static_cast<size_t>(r)];
      row.push_back(TopToken{id, {}, static_cast<float>(std::exp(static_cast<double>(l[id]) - m) / sum)});
    }
  }
  if (display)
    for (auto& row : out)
      for (auto& t : row) t.token = display(t.id);
}

}  // namespace

Result<Mask> modelMask(const ModelConfig& c, const Encoding& enc) {
  const int n = enc.size();
  int real = n;  // attention 1 then only 0: "padding:L"; anything else: a custom bitmap
  bool trailing = true;
  if (!enc.attention.empty()) {
    real = static_cast<int>(std::find(enc.attention.begin(), enc.attention.end(), 0) - enc.attention.begin());
    trailing = std::all_of(enc.attention.begin() + real, enc.attention.end(), [](uint8_t a) { return a == 0; });
  }
  std::string spec;
  if (c.family != Family::Bert) spec = "causal";
  if (c.slidingWindow > 0 && n > c.slidingWindow) spec += fmt::format("+window:{}", c.slidingWindow - 1);
  if (real < n && trailing) spec += fmt::format("{}padding:{}", spec.empty() ? "" : "+", real);
  Mask m;
  if (!spec.empty()) {
    auto p = Mask::parse(spec);
    if (!p) return p.error();
    m = *p;
  }
  if (!trailing) {
    std::vector<uint8_t> keep(static_cast<size_t>(n) * static_cast<size_t>(n));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        keep[static_cast<size_t>(i) * static_cast<size_t>(n) + static_cast<size_t>(j)] =
            enc.attention[static_cast<size_t>(j)] != 0;
    m = m.isNone() ? Mask::custom(std::move(keep), n, n) : m.withCustom(std::move(keep), n, n);
  }
  return m.bind(n, n, enc.tokens.size() == static_cast<size_t>(n) ? enc.tokens : std::vector<std::string>{});
}

Result<ModelRun> transformerForward(const ModelConfig& c, const ModelWeights& w, const Encoding& enc,
                                    const RunOptions& opt, const std::string& src,
                                    const std::function<std::string(int)>& display, const ProgressFn& progress) {
  const int n = enc.size();
  if (n == 0) return Error{src + ": nothing to run: the input has no tokens"};
  if (c.maxSequence() > 0 && n > c.maxSequence())
    return Error{fmt::format("{}: the input has {} tokens but max_position_embeddings allows {}", src, n,
                             c.maxSequence())};
  for (int i = 0; i < n; ++i) {
    const int id = enc.ids[static_cast<size_t>(i)];
    if (id < 0 || id >= c.vocabSize)
      return Error{fmt::format("{}: token id {} at position {} is outside the vocabulary (vocab_size {})", src, id,
                               i, c.vocabSize)};
  }
  if (!enc.typeIds.empty() && enc.typeIds.size() != static_cast<size_t>(n))
    return Error{fmt::format("{}: {} type ids for {} tokens", src, enc.typeIds.size(), n)};
  if (!enc.attention.empty() && enc.attention.size() != static_cast<size_t>(n))
    return Error{fmt::format("{}: {} attention mask entries for {} tokens", src, enc.attention.size(), n)};
  for (size_t i = 0; i < enc.typeIds.size(); ++i)
    if (enc.typeIds[i] != 0 && (c.family != Family::Bert || enc.typeIds[i] < 0 || enc.typeIds[i] >= c.typeVocabSize))
      return Error{fmt::format("{}: token type id {} at position {} is outside type_vocab_size {}", src,
                               enc.typeIds[i], i, c.family == Family::Bert ? c.typeVocabSize : 0)};
  if (opt.onlyLayer >= c.layers)
    return Error{fmt::format("{}: layer {} asked for, but the model has {} layers (0 to {})", src, opt.onlyLayer,
                             c.layers, c.layers - 1)};
  auto mask = modelMask(c, enc);
  if (!mask) return Error{src + ": " + mask.error().message};
  const std::vector<uint8_t> keep = mask->isNone() ? std::vector<uint8_t>{} : mask->bitmap(n, n);
  auto edits = headEdits(c.layers, c.heads, enc, keep, opt.interventions, src);
  if (!edits) return edits.error();
  const int start = reusableLayers(opt.cache, &w, enc, c.layers, opt.interventions.empty() ? -1 : firstEditedLayer(*edits),
                                   opt.keepAttention ? opt.onlyLayer : c.layers);
  if (opt.cache) {
    opt.cache->reusedLayers = start;
    if (opt.interventions.empty()) {
      opt.cache->clear();
      opt.cache->owner = &w;
      opt.cache->ids = enc.ids;
      opt.cache->typeIds = enc.typeIds;
      opt.cache->attention = enc.attention;
    }
  }

  ModelRun run;
  run.encoding = enc;
  const int64_t d = c.dModel;
  Mat h(n, d);
  // Embeddings.
  for (int i = 0; i < n; ++i) w.tokenEmbedding.rowTo(enc.ids[static_cast<size_t>(i)], &h(i, 0));
  if (c.family == Family::Gpt2) {
    h += w.positionEmbedding.mat().topRows(n);
  } else if (c.family == Family::Bert) {
    int pos = c.positionOffset;
    for (int i = 0; i < n; ++i) {
      int p = i;
      if (c.positionOffset > 0)  // RoBERTa: create_position_ids_from_input_ids
        p = enc.ids[static_cast<size_t>(i)] == c.padTokenId ? c.padTokenId : pos++;
      h.row(i) += w.positionEmbedding.mat().row(p);
      if (!w.typeEmbedding.empty())
        h.row(i) += w.typeEmbedding.mat().row(enc.typeIds.empty() ? 0 : enc.typeIds[static_cast<size_t>(i)]);
    }
    Mat e;
    layerNorm(h, w.embeddingNorm, c.normEps, e);
    h = std::move(e);
  }
  if (opt.keepHiddenStates) run.hiddenStates.reserve(static_cast<size_t>(c.layers) + 1);
  RopeTable rope;
  if (c.family == Family::Llama) rope = ropeTable(n, c.headDim, c.ropeTheta, c.ropeScaling);

  const float baseScale = 1.0f / std::sqrt(static_cast<float>(c.headDim));
  Mat a, qkv, q, k, v, concat, o, u, g;
  if (start > 0) {  // the layers before the first intervened one: as the cached run computed them
    if (opt.keepHiddenStates)
      for (int l = 0; l < start; ++l) run.hiddenStates.push_back(opt.cache->layerInputs[static_cast<size_t>(l)]);
    h = opt.cache->layerInputs[static_cast<size_t>(start)];
  }
  for (int l = start; l < c.layers; ++l) {
    if (progress && !progress(static_cast<double>(l) / (c.layers + 1), "running layers"))
      return Error{src + ": cancelled"};
    const LayerWeights& L = w.layers[static_cast<size_t>(l)];
    const bool store = opt.keepAttention && (opt.onlyLayer < 0 || opt.onlyLayer == l);
    if (opt.keepHiddenStates) run.hiddenStates.push_back(h);
    if (opt.cache && opt.interventions.empty()) opt.cache->layerInputs.push_back(h);
    AttentionResult res;
    float scale = baseScale;
    if (c.family == Family::Gpt2) {
      if (c.scaleByInverseLayer) scale /= static_cast<float>(l + 1);
      layerNorm(h, L.attnNorm, c.normEps, a);
      linear(a, L.qkv, qkv);
      q = qkv.leftCols(d);
      k = qkv.middleCols(d, d);
      v = qkv.rightCols(d);
    } else {
      const Mat* x = &h;
      if (c.family == Family::Llama) {
        rmsNorm(h, L.attnNorm, c.normEps, a);
        x = &a;
      }
      linear(*x, L.q, q);
      linear(*x, L.k, k);
      linear(*x, L.v, v);
      if (c.family == Family::Llama) {
        applyRope(q, c.headDim, rope);
        applyRope(k, c.headDim, rope);
      }
    }
    attendHeads(q, k, v, c, scale, keep, opt, store, res, concat, (*edits)[static_cast<size_t>(l)]);
    linear(concat, L.o, o);
    if (store) res.output = o;  // the attention block's output, before the residual
    if (c.family == Family::Bert) {
      o += h;
      layerNorm(o, L.attnNorm, c.normEps, a);  // a: attention block output
      linear(a, L.up, u);
      activate(u, c.activation);
      linear(u, L.down, o);
      o += a;
      layerNorm(o, L.mlpNorm, c.normEps, h);
    } else {
      h += o;
      if (c.family == Family::Gpt2) layerNorm(h, L.mlpNorm, c.normEps, a);
      else rmsNorm(h, L.mlpNorm, c.normEps, a);
      linear(a, L.up, u);
      if (c.family == Family::Llama) {
        linear(a, L.gate, g);
        activate(g, c.activation);
        u.array() *= g.array();  // SwiGLU: act(gate) * up
      } else {
        activate(u, c.activation);
      }
      linear(u, L.down, o);
      h += o;
    }
    if (store) {
      res.queryTokens = enc.tokens;
      res.keyTokens = enc.tokens;
      res.concatOutput = concat;
      res.mask = *mask;
      res.backendUsed = "cpu";
      res.execUsed = "naive";
      run.layers.push_back(std::move(res));
    }
  }
  if (c.family == Family::Bert) {
    if (opt.keepHiddenStates) run.hiddenStates.push_back(h);
    run.finalHidden = std::move(h);
    if (w.mlmHead.present()) {
      run.maskPositions = maskPositions(enc.ids, c.maskTokenId);
      if (opt.keepFullLogits) {
        maskedLmLogits(run.finalHidden, w.mlmHead, c.normEps, run.logits);
        run.maskLogits.resize(static_cast<Eigen::Index>(run.maskPositions.size()), run.logits.cols());
        for (size_t m = 0; m < run.maskPositions.size(); ++m)
          run.maskLogits.row(static_cast<Eigen::Index>(m)) = run.logits.row(run.maskPositions[m]);
      } else if (!run.maskPositions.empty()) {  // only the masked rows through the head
        Mat rows(static_cast<Eigen::Index>(run.maskPositions.size()), d);
        for (size_t m = 0; m < run.maskPositions.size(); ++m)
          rows.row(static_cast<Eigen::Index>(m)) = run.finalHidden.row(run.maskPositions[m]);
        maskedLmLogits(rows, w.mlmHead, c.normEps, run.maskLogits);
      }
      if (opt.maskTopK > 0)
        for (Eigen::Index m = 0; m < run.maskLogits.rows(); ++m) {
          auto top = topOfRow(&run.maskLogits(m, 0), static_cast<int>(run.maskLogits.cols()), opt.maskTopK);
          if (display)
            for (auto& t : top) t.token = display(t.id);
          run.maskPredictions.push_back(std::move(top));
        }
    }
  } else {
    if (c.family == Family::Gpt2) layerNorm(h, w.finalNorm, c.normEps, run.finalHidden);
    else rmsNorm(h, w.finalNorm, c.normEps, run.finalHidden);
    if (opt.keepHiddenStates) run.hiddenStates.push_back(run.finalHidden);
    if (opt.topK > 0 || opt.keepFullLogits) {
      LinearWeight head;
      head.w = w.lmHead;
      Mat logits;
      linear(run.finalHidden, head, logits);
      if (opt.topK > 0) topTokens(logits, opt.topK, display, run.nextTokens);
      if (opt.keepFullLogits) run.logits = std::move(logits);
    }
    if (opt.nextTokenLoss) {
      std::vector<int> rows, targets;
      for (int i = 0; i + 1 < n; ++i)
        if (enc.attention.empty() || (enc.attention[static_cast<size_t>(i)] && enc.attention[static_cast<size_t>(i) + 1])) {
          rows.push_back(i);
          targets.push_back(enc.ids[static_cast<size_t>(i) + 1]);
        }
      if (!rows.empty()) run.nextTokenLoss = fusedNextTokenLoss(run.finalHidden, w.lmHead, rows, targets);
    }
  }
  run.firstLayer = opt.onlyLayer >= 0 ? opt.onlyLayer : 0;
  if (progress && !progress(1.0, "done")) return Error{src + ": cancelled"};
  return run;
}

}  // namespace attn::models
