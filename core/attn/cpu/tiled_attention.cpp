#include "attn/cpu/tiled_attention.h"
#include "attn/cpu/packed_keys.h"
#include "attn/cpu/softmax_rows.h"

#include <algorithm>
#include <cmath>
#include <limits>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace attn {
namespace {

using namespace softmax_rows;

// Scores of tile [i0, i0+r) x [j0, j0+c) into s(0..r, 0..c); masked cells = kMasked.
void scoreTile(const HeadView& in, BlockState state, const Mat& qs, int i0, int r, int j0, int c,
               Mat& s) {
  auto tile = s.topLeftCorner(r, c);
  tile.noalias() = qs.topLeftCorner(r, in.q->cols()) * in.k->middleRows(j0, c).transpose();
  if (in.bias) tile += in.bias->block(i0, j0, r, c);
  if (state == BlockState::Mixed) maskMixedTile(*in.mask, i0, j0, tile);
}

void prepareStats(RowStats& st, int nq) {
  st.entropy.resize(nq);
  st.max.resize(nq);
  st.sum.resize(nq);
  st.fullyMaskedRows.clear();
}

void collectFullyMasked(RowStats& st) {
  for (int i = 0; i < st.sum.size(); ++i)
    if (st.sum[i] == 0.0f) st.fullyMaskedRows.push_back(i);
}

template <class M>
void ensureSize(M& m, Eigen::Index rows, Eigen::Index cols) {
  if (m.rows() < rows || m.cols() < cols) m.resize(std::max(m.rows(), rows), std::max(m.cols(), cols));
}

TileScratch& threadScratch() {
  static thread_local TileScratch s;
  return s;
}

}  // namespace

BlockState tileState(const Mask* mask, int i0, int i1, int j0, int j1) {
  if (mask == nullptr || mask->isNone()) return BlockState::AllAllowed;
  return mask->blockState(i0, i1, j0, j1);
}

void flashAttention(const HeadView& in, const TileConfig& cfg, TileScratch& sc, Mat& output,
                    RowStats& st) {
  const int nq = static_cast<int>(in.q->rows()), nk = static_cast<int>(in.k->rows());
  const int dk = static_cast<int>(in.q->cols()), dv = static_cast<int>(in.v->cols());
  const int bq = std::min(cfg.queryBlock, nq), bk = std::min(cfg.keyBlock, nk);
  output.resize(nq, dv);
  prepareStats(st, nq);
  if (sc.qs.rows() < bq || sc.qs.cols() != dk) sc.qs.resize(bq, dk);
  ensureSize(sc.s, bq, bk);
  ensureSize(sc.acc, bq, dv);
  if (sc.m.size() < bq) sc.m.resize(bq), sc.l.resize(bq), sc.t.resize(bq);

  for (int i0 = 0; i0 < nq; i0 += bq) {
    const int r = std::min(bq, nq - i0);
    sc.qs.topLeftCorner(r, dk) = in.q->middleRows(i0, r) * in.scale;
    auto acc = sc.acc.topLeftCorner(r, dv);
    acc.setZero();
    sc.m.head(r).setConstant(kNegInf);
    sc.l.head(r).setZero();
    sc.t.head(r).setZero();
    for (int j0 = 0; j0 < nk; j0 += bk) {
      const int c = std::min(bk, nk - j0);
      const BlockState state = tileState(in.mask, i0, i0 + r, j0, j0 + c);
      if (state == BlockState::AllMasked) continue;  // cost follows the allowed tiles
      scoreTile(in, state, sc.qs, i0, r, j0, c, sc.s);
      const bool mayMask = state == BlockState::Mixed || in.bias;
      for (int a = 0; a < r; ++a) {
        float* srow = &sc.s(a, 0);  // scores become e = exp(s - m) in place (one buffer in L2)
        const float tileMax = rowMax(srow, c);
        if (tileMax < kMaskedBelow) {  // the row sees nothing in this tile
          std::fill(srow, srow + c, 0.0f);
          continue;
        }
        const double mOld = sc.m[a], mNew = std::max(mOld, static_cast<double>(tileMax));
        double bl, bt;
        expRowInPlace(srow, c, static_cast<float>(mNew), mayMask, bl, bt);
        if (mOld == kNegInf) {
          sc.l[a] = bl;
          sc.t[a] = bt;
        } else {
          if (mNew > mOld) {  // rescale what was accumulated against the old max
            const double alpha = std::exp(mOld - mNew);
            sc.t[a] = alpha * (sc.t[a] + (mOld - mNew) * sc.l[a]);
            sc.l[a] *= alpha;
            acc.row(a) *= static_cast<float>(alpha);
          }
          sc.l[a] += bl;
          sc.t[a] += bt;
        }
        sc.m[a] = mNew;
      }
      acc.noalias() += sc.s.topLeftCorner(r, c) * in.v->middleRows(j0, c);
    }
    for (int a = 0; a < r; ++a) {
      const int i = i0 + a;
      const double l = sc.l[a];
      if (l > 0) {
        output.row(i) = acc.row(a) * static_cast<float>(1.0 / l);
        st.entropy[i] = static_cast<float>(std::max(0.0, std::log(l) - sc.t[a] / l));
        st.max[i] = static_cast<float>(sc.m[a]);
        st.sum[i] = static_cast<float>(l);
      } else {
        output.row(i).setZero();
        st.entropy[i] = 0.0f;
        st.max[i] = -std::numeric_limits<float>::infinity();
        st.sum[i] = 0.0f;
      }
    }
  }
  collectFullyMasked(st);
}

void blockedAttentionWithWeights(const HeadView& in, const TileConfig& cfg, Mat& weights,
                                 Mat& output, RowStats& st, int threads, Mat* scaledLogits) {
  const int nq = static_cast<int>(in.q->rows()), nk = static_cast<int>(in.k->rows());
  const int dk = static_cast<int>(in.q->cols()), dv = static_cast<int>(in.v->cols());
  // A block's full-width rows live in a per-thread buffer (at most about 1 MB,
  // so it stays in L2) while they are scored, exponentiated and multiplied by
  // V; the normalized weights are written to `weights` once, by the last pass.
  // Writing the scores straight into `weights` cost a zeroing pass (Eigen's
  // dst = A * B clears dst first) and every later pass over cold memory.
  const int rowsInL2 = std::max(16, (1 << 18) / std::max(1, nk));
  const int bq = std::min({cfg.queryBlock, nq, rowsInL2}), bk = std::min(cfg.keyBlock, nk);
  if (weights.rows() != nq || weights.cols() != nk) weights.resize(nq, nk);
  if (output.rows() != nq || output.cols() != dv) output.resize(nq, dv);
  if (scaledLogits && (scaledLogits->rows() != nq || scaledLogits->cols() != nk)) scaledLogits->resize(nq, nk);
  prepareStats(st, nq);
  const int numBlocks = (nq + bq - 1) / bq;
  // The scores of the weights' path come from the same packed-key kernel as
  // the streamed analysis' (streamed_analysis.h), so both see the same bits.
  // Per calling thread and reused (first touch of fresh pages is expensive);
  // the region's threads below read the caller's through this reference.
  static thread_local PackedKeys callerKeys;
  PackedKeys& keys = callerKeys;
  keys.pack(*in.k);

#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (threads > 1 && numBlocks > 1)
  for (int b = 0; b < numBlocks; ++b) {
    TileScratch& sc = threadScratch();
    if (sc.qs.rows() < bq || sc.qs.cols() != dk) sc.qs.resize(bq, dk);
    if (sc.rows.rows() < bq || sc.rows.cols() != nk) sc.rows.resize(bq, nk);
    const int i0 = b * bq, r = std::min(bq, nq - i0);
    sc.qs.topLeftCorner(r, dk) = in.q->middleRows(i0, r) * in.scale;
    auto S = sc.rows.topRows(r);  // r contiguous rows of nk scores
    bool mayMask = in.bias != nullptr;
    for (int j0 = 0; j0 < nk; j0 += bk) {
      const int c = std::min(bk, nk - j0);
      const BlockState state = tileState(in.mask, i0, i0 + r, j0, j0 + c);
      if (state == BlockState::AllMasked) {
        S.middleCols(j0, c).setConstant(kMasked);
        mayMask = true;
        if (scaledLogits)  // the logits view shows masked cells' logits too
          keys.scores(sc.qs.topLeftCorner(r, dk), &(*scaledLogits)(i0, j0), nk, j0, j0 + c);
        continue;
      }
      auto tile = S.middleCols(j0, c);
      keys.scores(sc.qs.topLeftCorner(r, dk), &S(0, j0), nk, j0, j0 + c);
      if (scaledLogits) scaledLogits->block(i0, j0, r, c) = tile;
      if (in.bias) tile += in.bias->block(i0, j0, r, c);
      if (state == BlockState::Mixed) {
        mayMask = true;
        maskMixedTile(*in.mask, i0, j0, tile);
      }
    }
    for (int a = 0; a < r; ++a) {
      const int i = i0 + a;
      float* s = &S(a, 0);
      Eigen::Map<Eigen::ArrayXf> row(s, nk);
      const float m = rowMax(s, nk);
      if (m < kMaskedBelow) {  // every key masked: all-zero weights, flagged
        row.setZero();
        weights.row(i).setZero();
        st.entropy[i] = 0.0f;
        st.max[i] = -std::numeric_limits<float>::infinity();
        st.sum[i] = 0.0f;
        continue;
      }
      double l, t;
      expRowInPlace(s, nk, m, mayMask, l, t);
      weights.row(i) = row.matrix().transpose() * static_cast<float>(1.0 / l);
      st.entropy[i] = static_cast<float>(std::max(0.0, std::log(l) - t / l));
      st.max[i] = m;
      st.sum[i] = static_cast<float>(l);
    }
    // O = diag(1/l) (E V): the unnormalized rows are still in cache.
    auto out = output.middleRows(i0, r);
    out.noalias() = S * *in.v;
    for (int a = 0; a < r; ++a) {
      const float l = st.sum[i0 + a];
      out.row(a) *= l > 0.0f ? 1.0f / l : 0.0f;
    }
  }
  collectFullyMasked(st);
}

void softmaxRowsInPlace(Mat& scores, RowStats& st) {
  const int nq = static_cast<int>(scores.rows()), nk = static_cast<int>(scores.cols());
  prepareStats(st, nq);
  for (int i = 0; i < nq; ++i) {
    float* s = &scores(i, 0);
    Eigen::Map<Eigen::ArrayXf> S(s, nk);
    const float m = rowMax(s, nk);
    if (!(m >= kMaskedBelow)) {  // every key masked (or no keys): zeros, flagged
      S.setZero();
      st.entropy[i] = 0.0f;
      st.max[i] = -std::numeric_limits<float>::infinity();
      st.sum[i] = 0.0f;
      continue;
    }
    double l, t;
    expRowInPlace(s, nk, m, /*mayMask=*/true, l, t);
    S *= static_cast<float>(1.0 / l);
    st.entropy[i] = static_cast<float>(std::max(0.0, std::log(l) - t / l));
    st.max[i] = m;
    st.sum[i] = static_cast<float>(l);
  }
  collectFullyMasked(st);
}

int BlockSchedule::computedTiles() const {
  return static_cast<int>(std::count_if(states.begin(), states.end(),
                                        [](BlockState s) { return s != BlockState::AllMasked; }));
}

BlockSchedule blockSchedule(const Mask& mask, int nq, int nk, const TileConfig& cfg) {
  BlockSchedule bs;
  bs.queryBlock = std::max(1, std::min(cfg.queryBlock, nq));
  bs.keyBlock = std::max(1, std::min(cfg.keyBlock, nk));
  bs.numQueryBlocks = (nq + bs.queryBlock - 1) / bs.queryBlock;
  bs.numKeyBlocks = (nk + bs.keyBlock - 1) / bs.keyBlock;
  for (int b = 0; b < bs.numQueryBlocks; ++b)
    for (int kb = 0; kb < bs.numKeyBlocks; ++kb) {
      const int i0 = b * bs.queryBlock, j0 = kb * bs.keyBlock;
      bs.states.push_back(tileState(&mask, i0, std::min(nq, i0 + bs.queryBlock), j0,
                                    std::min(nk, j0 + bs.keyBlock)));
    }
  return bs;
}

RowTrace traceRow(const HeadView& in, const TileConfig& cfg, int row) {
  const int nq = static_cast<int>(in.q->rows()), nk = static_cast<int>(in.k->rows());
  const int bq = std::max(1, std::min(cfg.queryBlock, nq)), bk = std::max(1, std::min(cfg.keyBlock, nk));
  RowTrace tr;
  tr.row = row;
  tr.queryBlock = row / bq;
  const int i0 = tr.queryBlock * bq, i1 = std::min(nq, i0 + bq);
  double m = kNegInf, l = 0, t = 0;
  for (int j0 = 0; j0 < nk; j0 += bk) {
    const int j1 = std::min(nk, j0 + bk);
    TileStep step;
    step.keyBegin = j0;
    step.keyEnd = j1;
    step.state = tileState(in.mask, i0, i1, j0, j1);
    std::vector<double> s;
    for (int j = j0; j < j1; ++j) {
      if (step.state == BlockState::AllMasked || (in.mask && !in.mask->allowed(row, j))) continue;
      double v = in.scale * static_cast<double>(in.q->row(row).dot(in.k->row(j)));
      if (in.bias) v += (*in.bias)(row, j);
      s.push_back(v);
    }
    double tileMax = kNegInf;
    for (double v : s) tileMax = std::max(tileMax, v);
    step.tileMax = static_cast<float>(tileMax);
    if (!s.empty()) {
      const double mNew = std::max(m, tileMax);
      if (m != kNegInf && mNew > m) {
        step.rescale = std::exp(m - mNew);
        t = step.rescale * (t + (m - mNew) * l);
        l *= step.rescale;
      }
      for (double v : s) {
        const double e = std::exp(v - mNew);
        l += e;
        t += e * (v - mNew);
      }
      m = mNew;
    }
    step.runningMax = m;
    step.runningSum = l;
    step.entropySoFar = l > 0 ? std::log(l) - t / l : 0.0;
    tr.steps.push_back(step);
  }
  tr.finalEntropy = tr.steps.empty() ? 0.0 : tr.steps.back().entropySoFar;
  return tr;
}

}  // namespace attn
