#include "attn/models/patching/stacked_patches.h"

#include <cmath>
#include <limits>
#include <utility>

#include "attn/cpu/tiled_attention.h"

namespace attn::models {
namespace {

/// The mask's rows first.. of `s` [n - first, n]: -inf where the key is hidden (keep empty:
/// every key visible), as the full pass's maskLogits does.
void maskSegmentLogits(Mat& s, const std::vector<uint8_t>& keep, int n, int first) {
  if (keep.empty()) return;
  for (Eigen::Index i = 0; i < s.rows(); ++i) {
    const uint8_t* row = &keep[static_cast<size_t>(first + i) * static_cast<size_t>(n)];
    for (int j = 0; j < n; ++j)
      if (!row[j]) s(i, j) = -std::numeric_limits<float>::infinity();
  }
}

/// One segment's heads: its queries (positions first..n-1) against [the corrupt run's keys
/// and values of rows < first ; its own], softmax(q k^T * scale) v per head, as attendHeads.
/// The two key blocks are read where they are (no copy: that would be n rows per segment
/// and layer); `s` is the thread's scratch.
void attendSegment(ForwardPass& f, const StackedPatches& sp, int l, float scale, const PatchSegment& seg,
                   Mat& s) {
  const ModelConfig& c = f.config;
  const int n = sp.n, first = seg.first, m = n - first, group = c.heads / c.kvHeads;
  const Eigen::Index hd = c.headDim;
  const Mat& cachedK = (*sp.keys)[static_cast<size_t>(l)];
  const Mat& cachedV = (*sp.values)[static_cast<size_t>(l)];
  RowStats st;
  for (int h = 0; h < c.heads; ++h) {
    const Eigen::Index col = h * hd, kvCol = (h / group) * hd;
    const auto q = f.q.block(seg.row0, col, m, hd);
    s.resize(m, n);
    if (first > 0) s.leftCols(first).noalias() = q * cachedK.block(0, kvCol, first, hd).transpose();
    s.rightCols(m).noalias() = q * f.k.block(seg.row0, kvCol, m, hd).transpose();
    s *= scale;
    maskSegmentLogits(s, f.keep, n, first);
    softmaxRowsInPlace(s, st);
    auto out = f.concat.block(seg.row0, col, m, hd);
    out.noalias() = s.rightCols(m) * f.v.block(seg.row0, kvCol, m, hd);
    if (first > 0) out.noalias() += s.leftCols(first) * cachedV.block(0, kvCol, first, hd);
  }
  if (seg.headLayer == l) {  // the patched head's output, every position, is the clean run's
    const Eigen::Index col = seg.head * hd;
    f.concat.block(seg.row0, col, m, hd) = (*sp.heads)[static_cast<size_t>(l)].block(first, col, m, hd);
  }
}

/// The rotary table's rows at each stacked row's position.
RopeTable gatherRope(const RopeTable& full, const StackedPatches& sp, Eigen::Index rows) {
  RopeTable t;
  if (full.cos.rows() == 0) return t;
  t.cos.resize(rows, full.cos.cols());
  t.sin.resize(rows, full.sin.cols());
  for (const PatchSegment& seg : sp.segments) {
    const int m = sp.n - seg.first;
    t.cos.middleRows(seg.row0, m) = full.cos.middleRows(seg.first, m);
    t.sin.middleRows(seg.row0, m) = full.sin.middleRows(seg.first, m);
  }
  return t;
}

}  // namespace

void stackedAttention(ForwardPass& f, int l, float scale) {
  const StackedPatches& sp = *f.stacked;
  f.concat.resize(f.q.rows(), static_cast<Eigen::Index>(f.config.heads) * f.config.headDim);
  const int segments = static_cast<int>(sp.segments.size());
#pragma omp parallel
  {
    Mat scores;  // one per thread, reused across its segments and heads
#pragma omp for schedule(dynamic, 1)
    for (int s = 0; s < segments; ++s)
      attendSegment(f, sp, l, scale, sp.segments[static_cast<size_t>(s)], scores);
  }
}

Mat runStacked(ForwardPass& f, const FamilyGraph& graph, StackedPatches& sp, int start, Mat h) {
  RopeTable full = std::move(f.rope);
  f.rope = gatherRope(full, sp, h.rows());
  f.stacked = &sp;
  AttentionResult unused;
  for (int l = start; l < f.config.layers; ++l) graph.layer(f, l, h, false, unused);
  f.stacked = nullptr;
  f.rope = std::move(full);
  Mat last(static_cast<Eigen::Index>(sp.segments.size()), h.cols());
  for (size_t s = 0; s < sp.segments.size(); ++s)
    last.row(static_cast<Eigen::Index>(s)) = h.row(sp.segments[s].row0 + sp.n - sp.segments[s].first - 1);
  ModelRun run;
  graph.output(f, last, run);
  return std::move(run.finalHidden);
}

}  // namespace attn::models
