#include "attn/analysis/head_types.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace attn {
namespace {

struct ClampedRows {
  Eigen::Index begin, end;
};

ClampedRows clampHeadTypeRows(const Eigen::Ref<const Mat>& map, RowRange rows) {
  const Eigen::Index nq = map.rows();
  const Eigen::Index end = rows.end < 0 ? nq : std::min<Eigen::Index>(rows.end, nq);
  const Eigen::Index begin = std::clamp<Eigen::Index>(rows.begin, 0, end);
  return {begin, end};
}

double finiteWeight(float w) { return std::isfinite(w) ? static_cast<double>(w) : 0.0; }

// mean over rows i of A[i, i + offset] (offset from the diagonal), rows whose key
// falls outside the map skipped; `fixedKey` >= 0 reads that column instead.
float meanAtKey(const Eigen::Ref<const Mat>& map, RowRange rows, long offset, long fixedKey = -1) {
  const auto [begin, end] = clampHeadTypeRows(map, rows);
  double sum = 0;
  long counted = 0;
  for (Eigen::Index i = begin; i < end; ++i) {
    const long j = fixedKey >= 0 ? fixedKey : static_cast<long>(i) + offset;
    if (j < 0 || j >= map.cols()) continue;
    sum += finiteWeight(map(i, j));
    ++counted;
  }
  return counted > 0 ? static_cast<float>(sum / static_cast<double>(counted)) : 0.0f;
}

}  // namespace

RowRange secondCopyRows(int nq, int period) {
  if (period < 1 || nq < 1) return {0, 0};
  return {std::max(0, nq - period), nq};
}

float previousTokenScore(const Eigen::Ref<const Mat>& map, RowRange rows) { return meanAtKey(map, rows, -1); }

float inductionScore(const Eigen::Ref<const Mat>& map, int period, RowRange rows) {
  if (period < 1) return 0.0f;
  return meanAtKey(map, rows, 1L - period);
}

float inductionScore(const Eigen::Ref<const Mat>& map, int period) {
  return inductionScore(map, period, secondCopyRows(static_cast<int>(map.rows()), period));
}

float duplicateTokenScore(const Eigen::Ref<const Mat>& map, int period, RowRange rows) {
  if (period < 1) return 0.0f;
  return meanAtKey(map, rows, -static_cast<long>(period));
}

float duplicateTokenScore(const Eigen::Ref<const Mat>& map, int period) {
  return duplicateTokenScore(map, period, secondCopyRows(static_cast<int>(map.rows()), period));
}

float sinkScore(const Eigen::Ref<const Mat>& map, RowRange rows) { return meanAtKey(map, rows, 0, 0); }

float selfScore(const Eigen::Ref<const Mat>& map, RowRange rows) { return meanAtKey(map, rows, 0); }

float localShare(const Eigen::Ref<const Mat>& map, RowRange rows, int window) {
  const auto [begin, end] = clampHeadTypeRows(map, rows);
  if (begin >= end || map.cols() == 0) return 0.0f;
  window = std::max(0, window);
  double sum = 0;
  for (Eigen::Index i = begin; i < end; ++i) {
    const Eigen::Index lo = std::max<Eigen::Index>(0, i - window);
    const Eigen::Index hi = std::min<Eigen::Index>(map.cols() - 1, i + window);
    for (Eigen::Index j = lo; j <= hi; ++j) sum += finiteWeight(map(i, j));
  }
  return static_cast<float>(sum / static_cast<double>(end - begin));
}

std::string_view headTypeName(HeadType t) {
  switch (t) {
    case HeadType::PreviousToken:
      return "previous-token";
    case HeadType::Induction:
      return "induction";
    case HeadType::Duplicate:
      return "duplicate";
    case HeadType::Sink:
      return "sink";
    case HeadType::Self:
      return "self";
    case HeadType::Local:
      return "local";
    case HeadType::Broad:
      return "broad";
  }
  return "broad";
}

HeadTypeScores headTypeScores(const Eigen::Ref<const Mat>& map, int period, RowRange rows) {
  HeadTypeScores s;
  s.previousToken = previousTokenScore(map, rows);
  s.induction = inductionScore(map, period, rows);
  s.duplicate = duplicateTokenScore(map, period, rows);
  s.sink = sinkScore(map, rows);
  s.self = selfScore(map, rows);
  s.local = localShare(map, rows);
  return s;
}

HeadType classifyHead(const HeadTypeScores& s, const HeadTypeThresholds& t) {
  if (s.induction >= t.induction) return HeadType::Induction;
  if (s.duplicate >= t.duplicate) return HeadType::Duplicate;
  if (s.previousToken >= t.previousToken) return HeadType::PreviousToken;
  if (s.sink >= t.sink) return HeadType::Sink;
  if (s.self >= t.self) return HeadType::Self;
  if (s.local >= t.local) return HeadType::Local;
  return HeadType::Broad;
}

}  // namespace attn
