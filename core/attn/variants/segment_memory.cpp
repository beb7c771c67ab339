#include "attn/variants/segment_memory.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "attn/variants/variant_rows.h"

namespace attn::variants {

std::vector<XlHeadParams> seededXlParams(int dModel, int heads, int dHead, InitScheme init, uint64_t seed) {
  std::vector<XlHeadParams> out(static_cast<size_t>(heads));
  for (int h = 0; h < heads; ++h) {
    auto& p = out[static_cast<size_t>(h)];
    const std::string tag = fmt::format(".h{}", h);
    p.wQ = initMatrix(dModel, dHead, init, seed, "xl.w_q" + tag);
    p.wK = initMatrix(dModel, dHead, init, seed, "xl.w_k" + tag);
    p.wV = initMatrix(dModel, dHead, init, seed, "xl.w_v" + tag);
    p.wR = initMatrix(dModel, dHead, init, seed, "xl.w_r" + tag);
    // u and v are learned vectors; drawn like a bias of fan-in d_head.
    p.u = initBias(dHead, dHead, seed, "xl.u" + tag);
    p.v = initBias(dHead, dHead, seed, "xl.v" + tag);
  }
  return out;
}

Mat relativeSinusoid(int count, int dModel) {
  Mat r(count, dModel);
  const int half = dModel / 2;
  for (int d = 0; d < count; ++d)
    for (int i = 0; i < half; ++i) {
      const double f = 1.0 / std::pow(10000.0, 2.0 * i / dModel);
      r(d, i) = static_cast<float>(std::sin(d * f));
      r(d, half + i) = static_cast<float>(std::cos(d * f));
    }
  if (dModel % 2 == 1)
    for (int d = 0; d < count; ++d) r(d, dModel - 1) = 0.0f;
  return r;
}

Result<XlResult> segmentMemoryAttention(const Mat& x, const std::vector<XlHeadParams>& params, int segmentLength,
                                        int memoryLength) {
  const int n = static_cast<int>(x.rows());
  if (segmentLength < 1) return Error{fmt::format("--segment must be at least 1 (got {})", segmentLength)};
  if (memoryLength < 0) return Error{fmt::format("--memory must be at least 0 (got {})", memoryLength)};
  if (n == 0) return Error{"segment memory: the input has no tokens"};
  if (params.empty()) return Error{"segment memory: no heads"};
  for (size_t h = 0; h < params.size(); ++h) {
    const auto& p = params[h];
    if (p.wQ.rows() != x.cols() || p.wK.rows() != x.cols() || p.wV.rows() != x.cols() || p.wR.rows() != x.cols() ||
        p.wK.cols() != p.wQ.cols() || p.wR.cols() != p.wQ.cols() || p.u.size() != p.wQ.cols() ||
        p.v.size() != p.wQ.cols())
      return Error{fmt::format("segment memory: head {} parameters do not fit d_model {}", h + 1, x.cols())};
  }
  XlResult res;
  res.segmentLength = segmentLength;
  res.memoryLength = memoryLength;
  const int maxKeys = std::min(n, segmentLength + memoryLength);
  const Mat rel = relativeSinusoid(maxKeys, static_cast<int>(x.cols()));
  res.fullWeights.assign(params.size(), Mat::Zero(n, n));
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  for (int start = 0; start < n; start += segmentLength) {
    XlSegment seg;
    seg.start = start;
    seg.length = std::min(segmentLength, n - start);
    seg.memLength = std::min(memoryLength, start);
    seg.memStart = start - seg.memLength;
    const int nk = seg.keyCount();
    const Mat xq = x.middleRows(start, seg.length);
    const Mat xk = x.middleRows(seg.memStart, nk);
    for (size_t h = 0; h < params.size(); ++h) {
      const auto& p = params[h];
      const float scale = 1.0f / std::sqrt(static_cast<float>(p.wQ.cols()));
      const Mat q = xq * p.wQ, k = xk * p.wK, v = xk * p.wV, r = rel * p.wR;  // r: [maxKeys, d_head]
      XlSegmentHead sh;
      sh.scale = scale;
      sh.content = q * k.transpose();
      sh.contentPosition = Mat::Zero(seg.length, nk);
      sh.globalContent = Mat::Zero(seg.length, nk);
      sh.globalPosition = Mat::Zero(seg.length, nk);
      sh.logits = Mat::Constant(seg.length, nk, kNegInf);
      const Vec ku = k * p.u;   // u . k_j
      const Vec rv = r * p.v;   // v . r_d
      for (int i = 0; i < seg.length; ++i)
        for (int j = 0; j < nk; ++j) {
          const int dist = (seg.memLength + i) - j;  // query at key index memLength + i
          if (dist < 0) continue;                    // causal: the future is hidden
          sh.contentPosition(i, j) = q.row(i).dot(r.row(dist));
          sh.globalContent(i, j) = ku(j);
          sh.globalPosition(i, j) = rv(dist);
          sh.logits(i, j) =
              scale * (sh.content(i, j) + sh.contentPosition(i, j) + sh.globalContent(i, j) + sh.globalPosition(i, j));
        }
      for (int i = 0; i < seg.length; ++i)
        for (int j = 0; j < nk; ++j)
          if (!std::isfinite(sh.logits(i, j))) sh.content(i, j) = 0.0f;  // hidden: no term shown
      sh.weights = maskedSoftmaxRows(sh.logits);
      sh.output = sh.weights * v;
      sh.entropy = rowEntropy(sh.weights);
      res.fullWeights[h].block(start, seg.memStart, seg.length, nk) = sh.weights;
      seg.heads.push_back(std::move(sh));
    }
    res.segments.push_back(std::move(seg));
  }
  return res;
}

std::vector<int> xlEarliestReach(int n, int segmentLength, int memoryLength, int layers) {
  std::vector<int> reach(static_cast<size_t>(std::max(n, 0)));
  if (n <= 0 || segmentLength < 1) return reach;
  // One layer: token i sees keys from its segment's memory start up to itself.
  std::vector<int> one(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const int start = (i / segmentLength) * segmentLength;
    one[static_cast<size_t>(i)] = std::max(0, start - std::max(memoryLength, 0));
  }
  // Each layer composes: the earliest token reaching any visible key of the layer below.
  std::vector<int> cur(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) cur[static_cast<size_t>(i)] = i;
  for (int l = 0; l < std::max(layers, 1); ++l) {
    std::vector<int> next(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      int e = cur[static_cast<size_t>(i)];
      for (int j = one[static_cast<size_t>(i)]; j <= i; ++j) e = std::min(e, cur[static_cast<size_t>(j)]);
      next[static_cast<size_t>(i)] = e;
    }
    cur = std::move(next);
  }
  return cur;
}

Result<XlRowWalk> xlRowWalk(const XlResult& r, int head, int segment, int row) {
  if (segment < 0 || segment >= static_cast<int>(r.segments.size()))
    return Error{fmt::format("segment {} is out of range (1..{})", segment + 1, r.segments.size())};
  const auto& seg = r.segments[static_cast<size_t>(segment)];
  if (head < 0 || head >= static_cast<int>(seg.heads.size()))
    return Error{fmt::format("head {} is out of range (1..{})", head + 1, seg.heads.size())};
  if (row < 0 || row >= seg.length)
    return Error{fmt::format("row {} is out of range (0..{})", row, seg.length - 1)};
  const auto& sh = seg.heads[static_cast<size_t>(head)];
  XlRowWalk w;
  w.segment = segment;
  w.row = row;
  w.absoluteQuery = seg.start + row;
  w.memLength = seg.memLength;
  const int nk = seg.keyCount();
  w.a = sh.content.row(row).transpose();
  w.b = sh.contentPosition.row(row).transpose();
  w.c = sh.globalContent.row(row).transpose();
  w.d = sh.globalPosition.row(row).transpose();
  w.sum = w.a + w.b + w.c + w.d;
  w.logits = sh.logits.row(row).transpose();
  w.weights = sh.weights.row(row).transpose();
  w.rowMax = -std::numeric_limits<float>::infinity();
  for (int j = 0; j < nk; ++j) {
    w.keyPositions.push_back(seg.memStart + j);
    w.distances.push_back(w.absoluteQuery - (seg.memStart + j));
    if (std::isfinite(w.logits(j))) w.rowMax = std::max(w.rowMax, w.logits(j));
    if (j < seg.memLength) w.memoryShare += w.weights(j);
  }
  w.scale = sh.scale;
  return w;
}

}  // namespace attn::variants
