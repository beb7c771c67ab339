#include "attn/analysis/streamed_rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>

#include "attn/analysis/fused_rows.h"
#include "attn/analysis/head_similarity.h"
#include "attn/analysis/streamed_analysis.h"
#include "attn/cpu/softmax_rows.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attn {
namespace {

using namespace softmax_rows;
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

enum Stage : int {
  kScores,
  kSoftmax,
  kEntropy,
  kMaxMin,
  kDistance,
  kCoverage,
  kOffsets,
  kDivergence,
  kStages
};
constexpr std::array<const char*, kStages> kStageNames = {"scores q k^T (+bias, mask)",
                                                          "softmax (exp, normalize)",
                                                          "one pass: p log p, max, min, distance, sums",
                                                          "gap, ratio, kept keys",
                                                          "mean distance (in the one pass)",
                                                          "coverage k (search)",
                                                          "offset profile, shares",
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
  bool output = false;  // the rows' output P V (measure items, and rows only the output needs)
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
    if (auto st = queries->read(head, rows, count, w.qs.data()); !st)
      throw std::runtime_error(st.error().message);
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
        case BlockState::AllAllowed:
          break;
        case BlockState::AllMasked:
          std::fill(row + j0, row + j0 + c, kMasked);
          break;
        case BlockState::Mixed:
          maskMixedTile(*hv.mask, i, j0, Eigen::Map<Mat>(row + j0, 1, c));
          break;
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
  Mat* outputs;     // null: no P V
  int rowOffset;    // row i is stored as row rowOffset + i of the whole
  int profileRows;  // the offset profile's rows: the whole's, or a window's own
  Mat* headSum;     // null: the heads' rows are not summed (StreamedRows::sumHeadsInto)
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
    // The output items cover every row of every head once, each a run of consecutive rows.
    if (sh.outputs && it.output) headOutput(hv, p, rows[0], it.count, nk, end, h, *sh.outputs);
    if (!it.measure && !it.divergence) continue;
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
      storeRow(ha, sh.rowOffset + i, f);
      if (sh.headSum)  // (an item holds every head of its rows: this thread alone adds to them)
        sh.headSum->row(sh.rowOffset + i).head(end) += Eigen::Map<const Eigen::RowVectorXf>(row, end);
      w.blockMass[static_cast<size_t>((h - h0) * it.count + a)] = f.hasMass;
      w.blockPlogp[static_cast<size_t>((h - h0) * it.count + a)] = f.plogp;
      if (f.hasMass) {
        const auto t0 = sh.timing ? Clock::now() : Clock::time_point{};
        w.sums[static_cast<size_t>(h)].addRow(row, nk, i, sh.profileRows, sh.sepIdx);
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

}  // namespace

StreamedRows::StreamedRows(int heads, int rows, int keys, const AnalysisOptions& options) : pairs_(heads) {
  out_.options = options;
  out_.nq = rows;
  out_.nk = keys;
  out_.uniformBound = uniformEntropy(keys, options.unit);
  out_.heads.resize(static_cast<size_t>(heads));
  for (auto& h : out_.heads) startHead(h, rows, keys);
  if (options.headSimilarity)
    use_ = divergenceRows(rows, keys, heads, options.divergence, options.unit, out_.divergenceInfo);
  divergence_ = options.headSimilarity && heads > 1 && keys > 0;
  inline_ = divergence_ && !out_.divergenceInfo.sampled;
  HeadRowSums zero;
  zero.reset(rows, keys);
  sums_.assign(static_cast<size_t>(heads), zero);
  static_assert(kStageCount == kStages);
}

namespace {

// Items of one call: rows [0, firstRow) for their output only, then [firstRow, nq) measured
// (all heads of a block together when the exact divergence reads them or the heads' rows are
// summed; else head-major, a head's keys staying in cache across its blocks), and the sampled
// divergence's rows after.
std::vector<Item> itemsOf(int nh, int nq, int nk, int firstRow, bool outputs, bool inline_, bool allHeads,
                          bool divergence, const std::vector<char>& use, int rowOffset,
                          std::vector<int>& rows) {
  std::vector<Item> items;
  if (nk == 0) return items;
  allHeads = allHeads || inline_;
  const int b = blockRows(nk, allHeads ? nh : 1);
  if (outputs)
    for (int h = 0; h < nh; ++h)
      for (int i0 = 0; i0 < firstRow; i0 += b)
        items.push_back({h, i0, std::min(b, firstRow - i0), false, false, true});
  if (allHeads) {
    for (int i0 = firstRow; i0 < nq; i0 += b)
      items.push_back({-1, i0, std::min(b, nq - i0), true, inline_, outputs});
  } else {
    for (int h = 0; h < nh; ++h)
      for (int i0 = firstRow; i0 < nq; i0 += b)
        items.push_back({h, i0, std::min(b, nq - i0), true, false, outputs});
  }
  if (!divergence || inline_) return items;
  const int begin = static_cast<int>(rows.size());
  for (int i = firstRow; i < nq; ++i)
    if (use[static_cast<size_t>(rowOffset + i)]) rows.push_back(i);
  const int end = static_cast<int>(rows.size());
  const int bAll = blockRows(nk, nh);
  for (int i0 = begin; i0 < end; i0 += bAll)
    items.push_back({-1, i0, std::min(bAll, end - i0), false, true, false});
  return items;
}

// A window's offset sums land at `shift` in the whole's vector; merge() adds the other sums
// (and the offsets only when both vectors have the same extent).
void mergeSums(HeadRowSums& whole, const HeadRowSums& part, int shift) {
  whole.merge(part);
  if (shift > 0) whole.offsets.segment(shift, part.offsets.size()) += part.offsets;
}

}  // namespace

void StreamedRows::add(const std::vector<HeadView>& heads, const std::vector<const PackedKeys*>& keys,
                       const std::vector<std::string>& keyTokens, const FloatRowsFile* queries, int firstRow,
                       int rowOffset, Mat* outputs, AnalysisProfile* profile) {
  const auto start = Clock::now();
  const int nh = static_cast<int>(heads.size());
  const int nq = nh == 0 ? 0 : queries ? queries->rows() : static_cast<int>(heads[0].q->rows());
  const int nk = nh > 0 ? keys[0]->keys() : 0;
  // A window of a longer sequence (fewer rows than the whole) keeps its threads' offset sums
  // over its own extent (its rows' offsets j - i lie within it) and adds them into the whole's
  // at the end: sums over the whole's extent would be zeroed and added once per window.
  const int profileRows = std::min(nq, out_.nq);
  const int shift = out_.nq - profileRows;  // offset o: index out_.nq - 1 + o, window's profileRows - 1 + o
  const auto sepKeys = separatorKeys(keyTokens, nk);
  if (separator_.size() < static_cast<size_t>(rowOffset + nk))
    separator_.resize(static_cast<size_t>(rowOffset + nk));
  for (int j = 0; j < nk; ++j)
    separator_[static_cast<size_t>(rowOffset + j)] |= sepKeys[static_cast<size_t>(j)] ? 1 : 0;

  // Rows: 0..nq-1, then the sampled rows (when sampling) as a second list.
  std::vector<int> rows(static_cast<size_t>(nq));
  for (int i = 0; i < nq; ++i) rows[static_cast<size_t>(i)] = i;
  const std::vector<Item> items = itemsOf(nh, nq, nk, firstRow, outputs != nullptr, inline_,
                                          headSum_ != nullptr, divergence_, use_, rowOffset, rows);
  Shared sh{&heads,
            &keys,
            queries,
            nq,
            nk,
            &rows,
            separatorIndex(sepKeys, nk),
            &out_.options,
            &out_.heads,
            profile != nullptr,
            outputs,
            rowOffset,
            profileRows,
            headSum_};
  std::exception_ptr thrown;
  std::atomic<bool> failed = false;
  const int numItems = static_cast<int>(items.size());
#pragma omp parallel
  {
#ifdef _OPENMP
    // (master, not single: no barrier, so the first thread starts on the items
    // while the others are still being created)
#pragma omp master
    threads_ = omp_get_num_threads();
#endif
    // Exceptions (std::bad_alloc, a failed read of the queries) must not leave
    // the OpenMP constructs: each is caught where it is thrown, the remaining
    // items are skipped, and the first is rethrown after the region.
    std::optional<Worker> w;
    try {
      w.emplace(nh, profileRows, shift == 0 ? out_.nk : nk);
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
        for (int h = 0; h < nh; ++h)
          mergeSums(sums_[static_cast<size_t>(h)], w->sums[static_cast<size_t>(h)], shift);
        pairs_.merge(w->pairs);
        for (int s = 0; s < kStages; ++s)
          seconds_[static_cast<size_t>(s)] += w->seconds[static_cast<size_t>(s)];
      }
    }
  }
  wallSeconds_ += secondsSince(start);
  if (thrown) std::rethrow_exception(thrown);
}

void StreamedRows::sumHeadsInto(Mat* sum) {
  headSum_ = sum;
  if (sum) sum->setZero(out_.nq, out_.nk);
}

Analysis StreamedRows::finish(AnalysisProfile* profile) {
  const auto t0 = Clock::now();
  const int nh = static_cast<int>(out_.heads.size());
  const int separators = static_cast<int>(std::count(separator_.begin(), separator_.end(), 1));
  for (int h = 0; h < nh; ++h) {
    HeadAnalysis& a = out_.heads[static_cast<size_t>(h)];
    finishHead(a, sums_[static_cast<size_t>(h)], separators, out_.options);
    if (!a.emptyRows.empty())
      out_.warnings.push_back(fullyMaskedRowsWarning(fmt::format("head {}", h + 1), a.emptyRows));
  }
  if (out_.options.headSimilarity) {
    out_.headDivergence = pairs_.matrix(out_.options.unit);
    out_.headOrder = similarityOrder(out_.headDivergence);
  }
  if (profile) {
    profile->threads = threads_;
    for (int s = 0; s < kStages; ++s)
      profile->add(kStageNames[static_cast<size_t>(s)], seconds_[static_cast<size_t>(s)]);
    profile->add("head summaries, order", secondsSince(t0));
    profile->wallSeconds += wallSeconds_ + secondsSince(t0);
  }
  return std::move(out_);
}

}  // namespace attn
