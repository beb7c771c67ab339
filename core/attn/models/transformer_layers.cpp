#include "attn/models/transformer_layers.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/cpu/tiled_attention.h"
#include "attn/models/mlm_head.h"
#include "attn/models/next_token_loss.h"
#include "attn/models/patching/stacked_patches.h"
#include "attn/models/streamed/streamed_attention.h"

namespace attn::models {
namespace {

bool kept(const std::vector<uint8_t>& keep, int n, int i, int j) {
  return keep[static_cast<size_t>(i) * static_cast<size_t>(n) + static_cast<size_t>(j)] != 0;
}

/// Masked logits are -inf (keep empty: every key visible).
void maskLogits(Mat& s, const std::vector<uint8_t>& keep) {
  if (keep.empty()) return;
  const int n = static_cast<int>(s.rows());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (!kept(keep, n, i, j)) s(i, j) = -std::numeric_limits<float>::infinity();
}

/// The "uniform" intervention: 1 / (allowed keys) on every allowed key of a row,
/// and the entropy of that row, log(allowed).
void uniformOverAllowed(Mat& s, const std::vector<uint8_t>& keep, Vec& entropy) {
  const int n = static_cast<int>(s.rows());
  for (int i = 0; i < n; ++i) {
    int allowed = n;
    if (!keep.empty())
      allowed = static_cast<int>(std::count_if(keep.begin() + static_cast<std::ptrdiff_t>(i) * n,
                                               keep.begin() + static_cast<std::ptrdiff_t>(i + 1) * n,
                                               [](uint8_t b) { return b != 0; }));
    for (int j = 0; j < n; ++j)
      s(i, j) =
          allowed > 0 && (keep.empty() || kept(keep, n, i, j)) ? 1.0f / static_cast<float>(allowed) : 0.0f;
    entropy(i) = allowed > 0 ? std::log(static_cast<float>(allowed)) : 0.0f;
  }
}

/// One head's weights softmax(s) from its logits s = q k^T, with the mask and
/// the head's interventions; the logits stages go to `hr` when it asks for them.
void headWeights(Mat& s, float scale, const std::vector<uint8_t>& keep, const HeadEdit* edit, HeadResult* hr,
                 bool keepLogits, RowStats& st) {
  if (hr && keepLogits) hr->rawLogits = s;
  s *= scale;
  if (hr && keepLogits) hr->scaledLogits = s;
  maskLogits(s, keep);
  if (hr && keepLogits) hr->maskedLogits = s;
  if (edit && edit->invTemperature != 1.0f) s *= edit->invTemperature;  // -inf stays -inf (T > 0)
  softmaxRowsInPlace(s, st);  // masked weights exactly 0, entropy in the same pass
  if (edit && edit->uniform) uniformOverAllowed(s, keep, st.entropy);
  if (edit && edit->zero) {  // HF head_mask = 0: the head's probabilities times 0
    s.setZero();
    st.entropy.setZero();
  }
}

/// Rows per block of the causal products below.
constexpr int kCausalRowBlock = 128;

/// For each block of kCausalRowBlock rows: one past its last kept key (keep empty:
/// all n). Keys past it are masked for every row of the block, so their
/// logits never reach a weight and their weights are exactly 0: the products
/// skip them (the upper triangle of a causal map, about half of Q K^T and P V).
std::vector<int> keysNeeded(const std::vector<uint8_t>& keep, int n) {
  std::vector<int> ends(static_cast<size_t>((n + kCausalRowBlock - 1) / kCausalRowBlock), n);
  if (keep.empty()) return ends;
  for (size_t b = 0; b < ends.size(); ++b) {
    int end = 0;
    const int i1 = std::min(n, static_cast<int>(b + 1) * kCausalRowBlock);
    for (int i = static_cast<int>(b) * kCausalRowBlock; i < i1; ++i) {
      const uint8_t* row = keep.data() + static_cast<size_t>(i) * static_cast<size_t>(n);
      for (int j = n - 1; j >= end; --j)
        if (row[j]) {
          end = j + 1;
          break;
        }
    }
    ends[b] = end;
  }
  return ends;
}

bool everyKey(const std::vector<int>& ends, int n) {
  return std::all_of(ends.begin(), ends.end(), [n](int e) { return e == n; });
}

/// s = q k^T on the keys each row block needs, zeros past them (masked next).
void blockLogits(const ConstMatRef& q, const ConstMatRef& k, const std::vector<int>& ends, Mat& s) {
  const int n = static_cast<int>(s.rows());
  if (everyKey(ends, n)) {  // one product (no mask, or the logits kept)
    s.noalias() = q * k.transpose();
    return;
  }
  for (size_t b = 0; b < ends.size(); ++b) {
    const int i0 = static_cast<int>(b) * kCausalRowBlock, rows = std::min(kCausalRowBlock, n - i0),
              e = ends[b];
    if (e > 0) s.block(i0, 0, rows, e).noalias() = q.middleRows(i0, rows) * k.topRows(e).transpose();
    if (e < n) s.block(i0, e, rows, n - e).setZero();
  }
}

/// out = p v over the keys each row block needs (the weights past them are exactly 0).
template <typename Out>
void blockValues(const Mat& p, const ConstMatRef& v, const std::vector<int>& ends, Out&& out) {
  const int n = static_cast<int>(p.rows());
  if (everyKey(ends, n)) {
    out.noalias() = p * v;
    return;
  }
  for (size_t b = 0; b < ends.size(); ++b) {
    const int i0 = static_cast<int>(b) * kCausalRowBlock, rows = std::min(kCausalRowBlock, n - i0),
              e = ends[b];
    if (e > 0)
      out.middleRows(i0, rows).noalias() = p.block(i0, 0, rows, e) * v.topRows(e);
    else
      out.middleRows(i0, rows).setZero();
  }
}

void attendHeads(ForwardPass& f, float scale, bool store, AttentionResult& res,
                 const std::vector<HeadEdit>& edits) {
  const ModelConfig& c = f.config;
  const int n = f.tokens(), H = c.heads, hd = c.headDim, group = c.heads / c.kvHeads;
  f.concat.resize(n, static_cast<Eigen::Index>(H) * hd);
  res.heads.assign(store ? static_cast<size_t>(H) : 0, HeadResult{});
  std::vector<Mat> scratch(static_cast<size_t>(H));
  const std::vector<int> modelEnds = keysNeeded(f.keep, n);
#pragma omp parallel for schedule(dynamic, 1)
  for (int h = 0; h < H; ++h) {
    const int kvh = h / group;
    const HeadEdit* edit = edits.empty() ? nullptr : &edits[static_cast<size_t>(h)];
    const bool ownMask = edit && !edit->keep.empty();
    const std::vector<uint8_t>& keep = ownMask ? edit->keep : f.keep;
    // The kept logits stages hold every cell, masked ones included.
    const std::vector<int> ends = f.opt.keepLogits ? keysNeeded({}, n)
                                  : ownMask        ? keysNeeded(keep, n)
                                                   : modelEnds;
    const auto qh = f.q.middleCols(static_cast<Eigen::Index>(h) * hd, hd);
    const auto kh = f.k.middleCols(static_cast<Eigen::Index>(kvh) * hd, hd);
    const auto vh = f.v.middleCols(static_cast<Eigen::Index>(kvh) * hd, hd);
    Mat& s = scratch[static_cast<size_t>(h)];
    s.resize(n, n);
    blockLogits(qh, kh, ends, s);
    HeadResult* hr = store ? &res.heads[static_cast<size_t>(h)] : nullptr;
    RowStats st;
    headWeights(s, scale, keep, edit, hr, f.opt.keepLogits, st);
    auto out = f.concat.middleCols(static_cast<Eigen::Index>(h) * hd, hd);
    blockValues(s, vh, ends, out);
    if (!hr) continue;
    if (f.opt.keepOutputs) hr->output = out;
    hr->entropy = std::move(st.entropy);
    hr->fullyMaskedRows = std::move(st.fullyMaskedRows);
    hr->weights = std::move(s);
    if (f.opt.keepQkv) {
      hr->q = qh;
      hr->k = kh;
    }
    if (f.opt.keepQkv || f.opt.contributions) hr->v = vh;  // the contributions' f(x_j) = v_j W_O
  }
}

/// The top k next tokens of every row of the lm_head logits.
void topTokens(const Mat& logits, int k, const std::function<std::string(int)>& display,
               std::vector<std::vector<TopToken>>& out) {
  const int n = static_cast<int>(logits.rows()), V = static_cast<int>(logits.cols());
  out.assign(static_cast<size_t>(n), {});
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; ++i) out[static_cast<size_t>(i)] = softmaxTopK(&logits(i, 0), V, k);
  if (display)
    for (auto& row : out)
      for (auto& t : row) t.token = display(t.id);
}

/// Mean next-token loss over the pairs of real tokens (i, i + 1).
void nextTokenLossOf(const ForwardPass& f, ModelRun& run) {
  const Encoding& enc = f.enc;
  std::vector<int> rows, targets;
  for (int i = 0; i + 1 < enc.size(); ++i)
    if (enc.attention.empty() ||
        (enc.attention[static_cast<size_t>(i)] && enc.attention[static_cast<size_t>(i) + 1])) {
      rows.push_back(i);
      targets.push_back(enc.ids[static_cast<size_t>(i) + 1]);
    }
  if (!rows.empty()) run.nextTokenLoss = fusedNextTokenLoss(run.finalHidden, f.weights.lmHead, rows, targets);
}

}  // namespace

void tokenEmbeddings(const ForwardPass& f, Mat& h) {
  const int n = f.tokens();
  h.resize(n, f.config.dModel);
  for (int i = 0; i < n; ++i) f.weights.tokenEmbedding.rowTo(f.enc.ids[static_cast<size_t>(i)], &h(i, 0));
}

void selfAttention(ForwardPass& f, int l, float scale, bool store, AttentionResult& res) {
  if (f.stacked)
    stackedAttention(f, l, scale);
  else if (f.streamed)
    streamedAttention(f, l, scale);
  else
    attendHeads(f, scale, store, res, f.edits[static_cast<size_t>(l)]);
  if (ActivationHooks* hk = f.hooks) {
    if (hk->recordHeads) hk->recordHeads->push_back(f.concat);
    if (hk->recordKeys) hk->recordKeys->push_back(f.k);
    if (hk->recordValues) hk->recordValues->push_back(f.v);
    if (hk->site == ActivationHooks::Site::HeadOutput && hk->layer == l) {
      const Eigen::Index hd = f.config.headDim, col = static_cast<Eigen::Index>(hk->index) * hd;
      f.concat.middleCols(col, hd) = hk->source->middleCols(col, hd);
    }
  }
  linear(f.concat, f.layer(l).o, f.o);
  // The attention block's output, before the residual; the contributions measure each key's
  // part against it (y_i = x_i + this row).
  if (store && (f.opt.keepOutputs || f.opt.contributions)) res.output = f.o;
}

void mlpOutputHook(ForwardPass& f, int l, Mat& out) {
  ActivationHooks* hk = f.hooks;
  if (!hk) return;
  if (hk->recordMlp) hk->recordMlp->push_back(out);
  if (hk->site == ActivationHooks::Site::MlpOutput && hk->layer == l)
    out.row(hk->index) = hk->source->row(hk->index);
}

namespace {

/// Chunked prefill: the MLP is row-wise, so a long sequence runs it on blocks of
/// RunOptions::prefillRows rows; its hidden activations [rows, intermediate] then take
/// the same memory at any N. Short sequences (n <= the block) run in one piece as before.
template <typename Block>
void mlpInRowBlocks(ForwardPass& f, const LinearWeight& down, const Mat& x, Mat& out, Block block) {
  const int n = static_cast<int>(x.rows()), rows = f.opt.prefillRows;
  if (rows <= 0 || n <= rows) {
    block(ConstMatRef(x));
    linear(f.u, down, out);
    return;
  }
  out.resize(n, down.out());
  Mat part;
  for (int r0 = 0; r0 < n; r0 += rows) {
    const int m = std::min(rows, n - r0);
    block(ConstMatRef(x.middleRows(r0, m)));
    linear(f.u, down, part);
    out.middleRows(r0, m) = part;
  }
}

}  // namespace

void mlp(ForwardPass& f, const LayerWeights& L, const Mat& x, Mat& out) {
  mlpInRowBlocks(f, L.down, x, out, [&](const ConstMatRef& xs) {
    linear(xs, L.up, f.u);
    activate(f.u, f.config.activation);
  });
}

void gatedMlp(ForwardPass& f, const LayerWeights& L, const Mat& x, Mat& out) {
  mlpInRowBlocks(f, L.down, x, out, [&](const ConstMatRef& xs) {
    linear(xs, L.up, f.u);
    linear(xs, L.gate, f.g);
    activate(f.g, f.config.activation);
    f.u.array() *= f.g.array();  // SwiGLU: act(gate) * up
  });
}

std::vector<std::vector<TopToken>> nextTokensAtRows(const WeightTensor& lmHead, const Mat& finalHidden,
                                                    const std::vector<int>& rows, int k,
                                                    const std::function<std::string(int)>& display,
                                                    int blockRows) {
  // The head's logits a panel of vocabulary rows at a time (4096: 2 MB for 128 positions, in
  // cache) folded into each position's running softmax and top k: the [positions, vocab] logits
  // (65 MB for 128 positions of a 128k vocabulary) are never stored, nor their fresh pages zeroed.
  constexpr int64_t kVocabPanel = 4096;
  const size_t step = static_cast<size_t>(std::max(1, blockRows));
  const int64_t vocab = lmHead.rows;
  const int keep = static_cast<int>(std::min<int64_t>(std::max(k, 0), vocab));
  LinearWeight head;
  std::vector<std::vector<TopToken>> out;
  out.reserve(rows.size());
  Mat block, logits;
  for (size_t r0 = 0; r0 < rows.size(); r0 += step) {
    const int m = static_cast<int>(std::min(step, rows.size() - r0));
    block.resize(m, finalHidden.cols());
    for (int i = 0; i < m; ++i) block.row(i) = finalHidden.row(rows[r0 + static_cast<size_t>(i)]);
    std::vector<RunningTopK> top(static_cast<size_t>(m), RunningTopK(keep));
    for (int64_t v0 = 0; v0 < vocab; v0 += kVocabPanel) {
      const int64_t n = std::min(kVocabPanel, vocab - v0);
      head.w = lmHead.rowRange(v0, n);
      linear(block, head, logits);
#pragma omp parallel for schedule(static) if (m > 1)
      for (int i = 0; i < m; ++i)
        top[static_cast<size_t>(i)].add(&logits(i, 0), static_cast<int>(n), static_cast<int>(v0));
    }
    for (const auto& t : top) {
      out.push_back(t.result());
      if (display)
        for (auto& token : out.back()) token.token = display(token.id);
    }
  }
  return out;
}

void causalLmOutputs(ForwardPass& f, ModelRun& run) {
  const RunOptions& opt = f.opt;
  if (opt.keepHiddenStates) run.hiddenStates.push_back(run.finalHidden);
  const int n = static_cast<int>(run.finalHidden.rows());
  if (opt.keepFullLogits) {
    LinearWeight head;
    head.w = f.weights.lmHead;
    Mat logits;
    linear(run.finalHidden, head, logits);
    if (opt.topK > 0) topTokens(logits, opt.topK, f.display, run.nextTokens);
    if (opt.topK > 0 && !opt.topKEveryPosition)  // the same contract as the blocked path below
      for (int i = 0; i + 1 < n; ++i) run.nextTokens[static_cast<size_t>(i)].clear();
    run.logits = std::move(logits);
  } else if (opt.topK > 0 && n > 0) {
    std::vector<int> rows;
    if (opt.topKEveryPosition) {
      rows.resize(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) rows[static_cast<size_t>(i)] = i;
    } else {
      rows.push_back(n - 1);
    }
    // Blocks of at most 256 rows keep the logits at 256 x vocab (32 MB for a 32k vocabulary)
    // while the head's product still runs as a GEMM; chunked prefill's rows when fewer.
    const int block = opt.prefillRows > 0 ? std::min(opt.prefillRows, 256) : 256;
    auto top = nextTokensAtRows(f.weights.lmHead, run.finalHidden, rows, opt.topK, f.display, block);
    if (opt.topKEveryPosition) {
      run.nextTokens = std::move(top);
    } else {
      run.nextTokens.assign(static_cast<size_t>(n), {});
      run.nextTokens.back() = std::move(top.front());
    }
  }
  if (opt.nextTokenLoss) nextTokenLossOf(f, run);
}

void maskedLmOutputs(ForwardPass& f, ModelRun& run) {
  const MaskedLmHead& head = f.weights.mlmHead;
  if (!head.present()) return;
  const double eps = f.config.normEps;
  run.maskPositions = maskPositions(f.enc.ids, f.config.maskTokenId);
  if (f.opt.keepFullLogits) {
    maskedLmLogits(run.finalHidden, head, eps, run.logits);
    run.maskLogits.resize(static_cast<Eigen::Index>(run.maskPositions.size()), run.logits.cols());
    for (size_t m = 0; m < run.maskPositions.size(); ++m)
      run.maskLogits.row(static_cast<Eigen::Index>(m)) = run.logits.row(run.maskPositions[m]);
  } else if (!run.maskPositions.empty()) {  // only the masked rows through the head
    Mat rows(static_cast<Eigen::Index>(run.maskPositions.size()), f.config.dModel);
    for (size_t m = 0; m < run.maskPositions.size(); ++m)
      rows.row(static_cast<Eigen::Index>(m)) = run.finalHidden.row(run.maskPositions[m]);
    maskedLmLogits(rows, head, eps, run.maskLogits);
  }
  if (f.opt.maskTopK > 0)
    for (Eigen::Index m = 0; m < run.maskLogits.rows(); ++m) {
      auto top = softmaxTopK(&run.maskLogits(m, 0), static_cast<int>(run.maskLogits.cols()), f.opt.maskTopK);
      if (f.display)
        for (auto& t : top) t.token = f.display(t.id);
      run.maskPredictions.push_back(std::move(top));
    }
}

}  // namespace attn::models
