#include "attn/analysis/streamed_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>

#include "attn/analysis/fused_rows.h"
#include "attn/analysis/head_rows.h"
#include "attn/analysis/head_similarity.h"
#include "attn/cpu/efficient_exec.h"
#include "attn/cpu/packed_keys.h"
#include "attn/cpu/softmax_rows.h"
#include "attn/engine/exec_path.h"
#include "attn/engine/head_inputs.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attn {

void AnalysisProfile::add(const std::string& name, double cpuSeconds) {
  for (auto& e : entries)
    if (e.name == name) {
      e.cpuSeconds += cpuSeconds;
      return;
    }
  entries.push_back({name, cpuSeconds});
}

namespace {

using namespace softmax_rows;
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

enum Stage { kScores, kSoftmax, kEntropy, kMaxMin, kDistance, kCoverage, kOffsets, kDivergence, kStages };
constexpr std::array<const char*, kStages> kStageNames = {
    "scores q k^T (+bias, mask)", "softmax (exp, normalize)", "one pass: p log p, max, min, distance, sums",
    "gap, ratio, kept keys", "mean distance (in the one pass)", "coverage k (search)", "offset profile, shares",
    "head Jensen-Shannon"};

// Rows per block: the packed-key scores (packed_keys.h) run at full rate from
// 8 rows on, so a block's rows of all its heads are kept to about 2 MB (a
// multiple of 8 rows, 8 to 96): the per-thread buffers are first touched once
// (first touch of fresh pages is expensive, docs/performance.md), a block's rows stay
// near the caches while they are measured, and at N = 32768 the buffers of the
// sampled divergence (every head's rows) hold 12 MB per thread, not 63.
int blockRows(int nk, int headsPerItem) {
  const long long rowBytes = 4LL * std::max(nk, 1) * std::max(headsPerItem, 1);
  const long long fit = (2LL << 20) / rowBytes / 8 * 8;
  return static_cast<int>(std::clamp<long long>(fit, 8, 96));
}

// One unit of work: rows [begin, begin + count) of `rows`, for one head (or all).
struct Item {
  int head = -1;  // -1: every head
  int begin = 0, count = 0;
  bool measure = true, divergence = false;
};

struct Worker {
  std::unique_ptr<float[]> p;  // heads x B x nk, not zeroed (every cell is written before it is read)
  size_t pSize = 0;
  Mat qs;
  FusedRowScratch scratch;
  std::vector<HeadRowSums> sums;
  PairDivergence pairs;
  std::array<double, kStages> seconds{};
  std::vector<const float*> rowP;
  std::vector<double> rowL, blockPlogp;  // blockPlogp: heads x B, sum p log p of the row
  std::vector<char> mass, blockMass;     // blockMass: heads x B, row has mass

  Worker(int heads, int nq, int nk) : sums(static_cast<size_t>(heads)), pairs(heads) {
    for (auto& s : sums) s.reset(nq, nk);
    rowP.resize(static_cast<size_t>(heads));
    rowL.resize(static_cast<size_t>(heads));
    mass.resize(static_cast<size_t>(heads));
  }
};

// Keys [0, end) hold every key the mask leaves to the listed rows when the keys from
// their last row + 1 on are all masked (causal masks): the rest of each row is 0, so
// the scores, the softmax and the measures need only the first `end` (half a causal
// head's cells); else nk.
int keyEnd(const HeadView& hv, const int* rows, int count, int nk) {
  if (!hv.mask || hv.mask->isNone() || count == 0) return nk;
  const auto [lo, hi] = std::minmax_element(rows, rows + count);
  const int end = *hi + 1;
  if (end >= nk) return nk;
  return hv.mask->blockState(*lo, *hi + 1, end, nk) == BlockState::AllMasked ? end : nk;
}

// Softmax rows of one head for the listed query rows into out (count x nk,
// row-major), exactly as blockedAttentionWithWeights forms its weights; keys from
// `end` on (keyEnd: all masked) are set to 0 without being scored.
void softmaxRows(const HeadView& hv, const PackedKeys& keys, const FloatRowsFile* queries, int head,
                 const int* rows, int count, int nk, int end, float* out, Worker& w, bool timing) {
  const auto t0 = timing ? Clock::now() : Clock::time_point{};
  const Eigen::Index dk = keys.depth();
  if (w.qs.rows() < count || w.qs.cols() != dk) w.qs.resize(std::max<Eigen::Index>(count, w.qs.rows()), dk);
  if (queries) {  // the same products as from memory: q, then q * scale
    if (auto st = queries->read(head, rows, count, w.qs.data()); !st) throw std::runtime_error(st.error().message);
    w.qs.topRows(count) *= hv.scale;
  } else if (rows[count - 1] - rows[0] == count - 1) {
    w.qs.topRows(count) = hv.q->middleRows(rows[0], count) * hv.scale;
  } else {
    for (int a = 0; a < count; ++a) w.qs.row(a) = hv.q->row(rows[a]) * hv.scale;
  }
  keys.scores(w.qs.topRows(count), out, nk, 0, end);
  const bool hasMask = hv.mask && !hv.mask->isNone();
  constexpr int kKeyTile = 512;
  for (int a = 0; a < count; ++a) {
    const int i = rows[a];
    float* row = out + static_cast<size_t>(a) * nk;
    if (hv.bias) Eigen::Map<Eigen::RowVectorXf>(row, end) += hv.bias->row(i).head(end);
    if (!hasMask) continue;
    for (int j0 = 0; j0 < end; j0 += kKeyTile) {
      const int c = std::min(kKeyTile, end - j0);
      switch (hv.mask->blockState(i, i + 1, j0, j0 + c)) {
        case BlockState::AllAllowed: break;
        case BlockState::AllMasked: std::fill(row + j0, row + j0 + c, kMasked); break;
        case BlockState::Mixed: maskMixedTile(*hv.mask, i, j0, Eigen::Map<Mat>(row + j0, 1, c)); break;
      }
    }
  }
  const auto t1 = timing ? Clock::now() : Clock::time_point{};
  if (timing) w.seconds[kScores] += std::chrono::duration<double>(t1 - t0).count();
  const bool mayMask = hasMask || hv.bias;
  for (int a = 0; a < count; ++a) {
    float* row = out + static_cast<size_t>(a) * nk;
    std::fill(row + end, row + nk, 0.0f);
    const float m = rowMax(row, end);
    if (!(m >= kMaskedBelow)) {  // every key masked: all-zero weights
      std::fill(row, row + end, 0.0f);
      continue;
    }
    double l, t;
    expRowInPlace(row, end, m, mayMask, l, t);
    Eigen::Map<Eigen::ArrayXf>(row, end) *= static_cast<float>(1.0 / l);
  }
  if (timing) w.seconds[kSoftmax] += secondsSince(t1);
}

// Head h's output rows [first, first + count): P V over the keys [0, end) the rows may see (the
// rest of each row is 0), P row-major with stride nk.
void headOutput(const HeadView& hv, const float* p, int first, int count, int nk, int end, int h, Mat& out) {
  const Eigen::Index dv = hv.v->cols();
  auto o = out.block(first, static_cast<Eigen::Index>(h) * dv, count, dv);
  if (end == 0) {
    o.setZero();
    return;
  }
  const Eigen::Map<const Mat, 0, Eigen::OuterStride<>> P(p, count, end, Eigen::OuterStride<>(nk));
  o.noalias() = P * hv.v->topRows(end);
}

struct Shared {
  const std::vector<HeadView>* heads;
  const std::vector<const PackedKeys*>* keys;  // per head (heads of one KV group share theirs)
  const FloatRowsFile* queries;
  int nq, nk;
  const std::vector<int>* rows;
  std::vector<int> sepIdx;
  const AnalysisOptions* opt;
  std::vector<HeadAnalysis>* out;
  bool timing;
  Mat* outputs;  // null: no P V
};

void runItem(const Item& it, const Shared& sh, Worker& w) {
  const int nk = sh.nk, nh = static_cast<int>(sh.heads->size());
  const int* rows = sh.rows->data() + it.begin;
  const int h0 = it.head < 0 ? 0 : it.head, h1 = it.head < 0 ? nh : it.head + 1;
  const size_t block = static_cast<size_t>(it.count) * static_cast<size_t>(nk);
  const size_t need = static_cast<size_t>(h1 - h0) * block;
  if (w.pSize < need) {
    w.p.reset(new float[need]);
    w.pSize = need;
  }
  if (w.blockMass.size() < static_cast<size_t>(nh * it.count)) {
    w.blockMass.resize(static_cast<size_t>(nh * it.count));
    w.blockPlogp.resize(static_cast<size_t>(nh * it.count));
  }
  // Rows of the pairs' divergence are halved in place once measured (their
  // last use before the pairs, while still in L1): mlogmSumOfHalves adds halves.
  const auto halve = [&](float* row, int n) {
    if (it.divergence) Eigen::Map<Eigen::ArrayXf>(row, n) *= 0.5f;
  };
  int pairEnd = 0;  // the pairs' row length: every head's keyEnd (the rest of each row is 0)
  for (int h = h0; h < h1; ++h) {
    float* p = w.p.get() + static_cast<size_t>(h - h0) * block;
    const HeadView& hv = (*sh.heads)[static_cast<size_t>(h)];
    const int end = keyEnd(hv, rows, it.count, nk);
    pairEnd = std::max(pairEnd, end);
    softmaxRows(hv, *(*sh.keys)[static_cast<size_t>(h)], sh.queries, h, rows, it.count, nk, end, p, w,
                sh.timing);
    // The measure items cover every row of every head once, each a run of consecutive rows.
    if (sh.outputs && it.measure) headOutput(hv, p, rows[0], it.count, nk, end, h, *sh.outputs);
    if (!it.measure) {
      const auto t0 = sh.timing ? Clock::now() : Clock::time_point{};
      for (int a = 0; a < it.count; ++a) {
        float* row = p + static_cast<size_t>(a) * nk;
        w.blockMass[static_cast<size_t>((h - h0) * it.count + a)] = rowMax(row, end) > 0.0f;
        w.blockPlogp[static_cast<size_t>((h - h0) * it.count + a)] = plogpRow(row, end);
        halve(row, end);
      }
      if (sh.timing) w.seconds[kDivergence] += secondsSince(t0);
      continue;
    }
    HeadAnalysis& ha = (*sh.out)[static_cast<size_t>(h)];
    RowTimes times;
    for (int a = 0; a < it.count; ++a) {
      float* row = p + static_cast<size_t>(a) * nk;
      const int i = rows[a];
      // (Zeros past `end` change no measure: keep null counts p > 0 as the unmasked keys.)
      const FusedRow f = measureRow(row, end, i, nullptr, sh.opt->coverageLevel, w.scratch, nullptr,
                                    sh.timing ? &times : nullptr);
      storeRow(ha, i, f);
      w.blockMass[static_cast<size_t>((h - h0) * it.count + a)] = f.hasMass;
      w.blockPlogp[static_cast<size_t>((h - h0) * it.count + a)] = f.plogp;
      if (f.hasMass) {
        const auto t0 = sh.timing ? Clock::now() : Clock::time_point{};
        w.sums[static_cast<size_t>(h)].addRow(row, nk, i, sh.nq, sh.sepIdx);
        if (sh.timing) w.seconds[kOffsets] += secondsSince(t0);
      }
      halve(row, end);
    }
    w.seconds[kEntropy] += times.entropy;
    w.seconds[kMaxMin] += times.maxMin;
    w.seconds[kDistance] += times.distance;
    w.seconds[kCoverage] += times.coverage;
  }
  if (!it.divergence) return;
  const auto t0 = sh.timing ? Clock::now() : Clock::time_point{};
  // Softmax rows sum to 1 by construction (the materialized path's jsReadyRow
  // would return them unchanged): no rescaling pass. Each of the heads' pairs
  // adds the halved rows directly.
  for (int a = 0; a < it.count; ++a) {
    for (int h = 0; h < nh; ++h) {
      const auto uh = static_cast<size_t>(h);
      const size_t off = uh * block + static_cast<size_t>(a) * nk;
      w.mass[uh] = w.blockMass[static_cast<size_t>(h * it.count + a)];
      w.rowP[uh] = w.p.get() + off;
      w.rowL[uh] = w.blockPlogp[static_cast<size_t>(h * it.count + a)];
    }
    w.pairs.addRow(w.rowP, w.rowL, w.mass, pairEnd, /*halves=*/true);
  }
  if (sh.timing) w.seconds[kDivergence] += secondsSince(t0);
}

Analysis analyzeStreamedOver(const std::vector<HeadView>& heads, const std::vector<const PackedKeys*>& keys,
                             const std::vector<std::string>& keyTokens, const AnalysisOptions& options,
                             AnalysisProfile* profile, const FloatRowsFile* queries, Mat* outputs = nullptr);

}  // namespace

Analysis analyzeStreamed(const std::vector<HeadView>& heads, const std::vector<std::string>& keyTokens,
                         const AnalysisOptions& options, AnalysisProfile* profile, Mat* outputs) {
  const auto t0 = Clock::now();
  // One packed copy per distinct key matrix: the query heads of a KV group (GQA) read the
  // same keys, and packing each head's would take H / KV copies of them (N x head_dim
  // floats each: 1 GB at 32,768 tokens for a 32-head layer with 8 KV heads).
  std::vector<const Mat*> distinct;
  std::vector<size_t> of(heads.size());
  for (size_t h = 0; h < heads.size(); ++h) {
    const auto at = std::find(distinct.begin(), distinct.end(), heads[h].k);
    of[h] = static_cast<size_t>(at - distinct.begin());
    if (at == distinct.end()) distinct.push_back(heads[h].k);
  }
  std::vector<PackedKeys> packed(distinct.size());
  const int nd = static_cast<int>(distinct.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (int d = 0; d < nd; ++d) packed[static_cast<size_t>(d)].pack(*distinct[static_cast<size_t>(d)]);
  std::vector<const PackedKeys*> keys(heads.size());
  for (size_t h = 0; h < heads.size(); ++h) keys[h] = &packed[of[h]];
  if (profile) profile->add("pack keys", secondsSince(t0));
  return analyzeStreamedOver(heads, keys, keyTokens, options, profile, nullptr, outputs);
}

Analysis analyzeStreamed(const std::vector<HeadView>& heads, const std::vector<PackedKeys>& keys,
                         const std::vector<std::string>& keyTokens, const AnalysisOptions& options,
                         AnalysisProfile* profile, const FloatRowsFile* queries) {
  std::vector<const PackedKeys*> each(keys.size());
  for (size_t h = 0; h < keys.size(); ++h) each[h] = &keys[h];
  return analyzeStreamedOver(heads, each, keyTokens, options, profile, queries);
}

namespace {

Analysis analyzeStreamedOver(const std::vector<HeadView>& heads, const std::vector<const PackedKeys*>& keys,
                             const std::vector<std::string>& keyTokens, const AnalysisOptions& options,
                             AnalysisProfile* profile, const FloatRowsFile* queries, Mat* outputs) {
  const auto start = Clock::now();
  Analysis out;
  out.options = options;
  const int nh = static_cast<int>(heads.size());
  const int nq = nh == 0 ? 0 : queries ? queries->rows() : static_cast<int>(heads[0].q->rows());
  const int nk = nh > 0 ? keys[0]->keys() : 0;
  out.nq = nq;
  out.nk = nk;
  out.uniformBound = uniformEntropy(nk, options.unit);
  const auto sepKeys = separatorKeys(keyTokens, nk);
  out.heads.resize(static_cast<size_t>(nh));
  for (auto& h : out.heads) startHead(h, nq, nk);

  std::vector<char> use;
  if (options.headSimilarity) use = divergenceRows(nq, nk, nh, options.divergence, options.unit, out.divergenceInfo);
  const bool divergence = options.headSimilarity && nh > 1 && nk > 0;
  const bool inline_ = divergence && !out.divergenceInfo.sampled;

  // Rows: 0..nq-1, then the sampled rows (when sampling) as a second list.
  std::vector<int> rows(static_cast<size_t>(nq));
  for (int i = 0; i < nq; ++i) rows[static_cast<size_t>(i)] = i;
  const int b = blockRows(nk, inline_ ? nh : 1);
  std::vector<Item> items;
  if (nk > 0) {
    if (inline_) {  // all heads of a block together: measures, then the pairs from the same rows
      for (int i0 = 0; i0 < nq; i0 += b) items.push_back({-1, i0, std::min(b, nq - i0), true, true});
    } else {  // head-major: a head's keys stay in cache across its blocks
      for (int h = 0; h < nh; ++h)
        for (int i0 = 0; i0 < nq; i0 += b) items.push_back({h, i0, std::min(b, nq - i0), true, false});
      if (divergence) {
        const int begin = static_cast<int>(rows.size());
        for (int i = 0; i < nq; ++i)
          if (use[static_cast<size_t>(i)]) rows.push_back(i);
        const int end = static_cast<int>(rows.size());
        const int bAll = blockRows(nk, nh);
        for (int i0 = begin; i0 < end; i0 += bAll) items.push_back({-1, i0, std::min(bAll, end - i0), false, true});
      }
    }
  }

  Shared sh{&heads, &keys, queries, nq, nk, &rows, separatorIndex(sepKeys, nk), &options, &out.heads, profile != nullptr,
            outputs};
  HeadRowSums zero;
  zero.reset(nq, nk);
  std::vector<HeadRowSums> sums(static_cast<size_t>(nh), zero);
  PairDivergence pairs(nh);
  std::array<double, kStages> seconds{};
  int threads = 1;
  std::exception_ptr thrown;
  std::atomic<bool> failed = false;
  const int numItems = static_cast<int>(items.size());
#pragma omp parallel
  {
#ifdef _OPENMP
    // (master, not single: no barrier, so the first thread starts on the items
    // while the others are still being created)
#pragma omp master
    threads = omp_get_num_threads();
#endif
    // Exceptions (std::bad_alloc, a failed read of the queries) must not leave
    // the OpenMP constructs: each is caught where it is thrown, the remaining
    // items are skipped, and the first is rethrown after the region.
    std::optional<Worker> w;
    try {
      w.emplace(nh, nq, nk);
    } catch (...) {
      failed = true;
#pragma omp critical(attn_streamed_merge)
      thrown = std::current_exception();
    }
#pragma omp for schedule(dynamic, 1)
    for (int k = 0; k < numItems; ++k) {
      if (!w || failed) continue;
      try {
        runItem(items[static_cast<size_t>(k)], sh, *w);
      } catch (...) {
        failed = true;
#pragma omp critical(attn_streamed_merge)
        if (!thrown) thrown = std::current_exception();
      }
    }
    if (w) {
#pragma omp critical(attn_streamed_merge)
      {
        for (int h = 0; h < nh; ++h) sums[static_cast<size_t>(h)].merge(w->sums[static_cast<size_t>(h)]);
        pairs.merge(w->pairs);
        for (int s = 0; s < kStages; ++s) seconds[static_cast<size_t>(s)] += w->seconds[static_cast<size_t>(s)];
      }
    }
  }
  if (thrown) std::rethrow_exception(thrown);

  const auto t0 = Clock::now();
  for (int h = 0; h < nh; ++h) {
    HeadAnalysis& a = out.heads[static_cast<size_t>(h)];
    finishHead(a, sums[static_cast<size_t>(h)], static_cast<int>(sh.sepIdx.size()), options);
    if (!a.emptyRows.empty()) out.warnings.push_back(fullyMaskedRowsWarning(fmt::format("head {}", h + 1), a.emptyRows));
  }
  if (options.headSimilarity) {
    out.headDivergence = pairs.matrix(options.unit);
    out.headOrder = similarityOrder(out.headDivergence);
  }
  if (profile) {
    profile->threads = threads;
    for (int s = 0; s < kStages; ++s) profile->add(kStageNames[static_cast<size_t>(s)], seconds[static_cast<size_t>(s)]);
    profile->add("head summaries, order", secondsSince(t0));
    profile->wallSeconds += secondsSince(start);
  }
  return out;
}

}  // namespace

bool canStreamAnalysis(const AttentionSpec& spec, int nq, int nk) {
  if (spec.backend == BackendKind::Cuda) return false;
  const ExecPath path = resolveExecPath(spec, nq, nk);
  if (path != ExecPath::Tiled && path != ExecPath::Sparse) return false;
  for (const auto& t : spec.mask.terms())
    if (!t.restricts()) return false;
  return true;
}

namespace {

Result<StreamedMetrics> streamedFrom(const AttentionInput& in, AttentionInput* take, const AttentionSpec& specIn,
                                     const AnalysisOptions& options, AnalysisProfile* profile) {
  const auto t0 = Clock::now();
  AttentionSpec spec = specIn;
  spec.weightsHead = -2;  // nothing N x N is kept (the memory guard counts only a logit bias)
  // Queries not kept: read back from their file, which only dot and scaled-dot
  // scores can use as they are (general and cosine transform q first).
  std::optional<FloatRowsFile> queries;
  if (in.queriesDropped()) {
    if (spec.mechanism != Mechanism::Dot && spec.mechanism != Mechanism::ScaledDot)
      return Error{"the queries 'q' were read without being kept; mechanism '" +
                   std::string(mechanismName(spec.mechanism)) + "' transforms them (read them with the input)"};
    const auto& d = in.droppedQ;
    auto f = FloatRowsFile::open(in.queryFile.path, in.queryFile.offset, static_cast<int>(d.heads),
                                 static_cast<int>(d.rows), static_cast<int>(d.cols));
    if (!f) return f.error();
    queries = std::move(f).value();
  }
  AttentionResult res;
  if (auto st = take ? setUpHeads(std::move(*take), spec, res) : setUpHeads(in, spec, res); !st) return st.error();
  StreamedMetrics m;
  m.nq = queries ? queries->rows() : static_cast<int>(res.heads[0].q.rows());
  m.nk = static_cast<int>(res.heads[0].k.rows());
  m.execUsed = std::string(execPathName(resolveExecPath(spec, m.nq, m.nk)));
  m.queryTokens = in.queryTokens;
  m.keyTokens = in.keyTokens;
  if (m.keyTokens.empty() && !in.isCross() && m.nk == m.nq) m.keyTokens = in.queryTokens;
  if (m.queryTokens.empty())
    for (int i = 0; i < m.nq; ++i) m.queryTokens.push_back(std::to_string(i));
  if (m.keyTokens.empty())
    for (int j = 0; j < m.nk; ++j) m.keyTokens.push_back(std::to_string(j));
  const size_t nh = res.heads.size();
  std::vector<Mat> qBuf(nh), kBuf(nh);
  std::vector<HeadView> views;
  std::vector<PackedKeys> keys(nh);
  for (size_t h = 0; h < nh; ++h) {
    res.heads[h].v.resize(0, 0);  // metrics never read the values
    views.push_back(tiledHeadView(spec, res.heads[h], qBuf[h], kBuf[h]));
    // Only the packed keys are read from here on, packed in k's own memory.
    keys[h].pack(std::move(views.back().k == &kBuf[h] ? kBuf[h] : res.heads[h].k));
    res.heads[h].k.resize(0, 0);
    kBuf[h].resize(0, 0);
    views.back().k = nullptr;
  }
  if (profile) profile->add("prepare heads (projections, positions, packed keys)", secondsSince(t0));
  try {
    m.analysis = analyzeStreamed(views, keys, m.keyTokens, options, profile, queries ? &*queries : nullptr);
  } catch (const std::runtime_error& e) {  // a failed read of the queries
    return Error{e.what()};
  }
  for (const auto& h : m.analysis.heads)
    if (!h.emptyRows.empty()) {
      m.warnings.push_back(
          fmt::format("{} query row(s) have every key masked; their weights are 0", h.emptyRows.size()));
      break;
    }
  return m;
}

}  // namespace

Result<StreamedMetrics> analyzeAttentionStreamed(const AttentionInput& in, const AttentionSpec& spec,
                                                 const AnalysisOptions& options, AnalysisProfile* profile) {
  return streamedFrom(in, nullptr, spec, options, profile);
}

Result<StreamedMetrics> analyzeAttentionStreamed(AttentionInput&& in, const AttentionSpec& spec,
                                                 const AnalysisOptions& options, AnalysisProfile* profile) {
  return streamedFrom(in, &in, spec, options, profile);
}

}  // namespace attn
