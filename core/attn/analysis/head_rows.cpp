#include "attn/analysis/head_rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace attn {

void HeadRowSums::reset(int nq, int nk) {
  *this = {};
  offsets = Eigen::VectorXd::Zero(std::max(0, nq + nk - 1));
}

void HeadRowSums::addRow(const float* p, int nk, int i, int nq, const std::vector<int>& separatorIndex) {
  if (nk == 0) return;
  const Eigen::Map<const Eigen::ArrayXf> row(p, nk);
  offsets.segment(nq - 1 - i, nk).array() += row.cast<double>();
  ++nRows;
  first += p[0];
  if (i < nk) {
    diagonal += p[i];
    ++nDiagonal;
  }
  if (i >= 1 && i - 1 < nk) {
    previous += p[i - 1];
    ++nPrevious;
  }
  if (i + 1 < nk) {
    next += p[i + 1];
    ++nNext;
  }
  for (int j : separatorIndex) separator += p[j];
}

void HeadRowSums::merge(const HeadRowSums& o) {
  if (offsets.size() == o.offsets.size()) offsets += o.offsets;
  diagonal += o.diagonal;
  previous += o.previous;
  next += o.next;
  first += o.first;
  separator += o.separator;
  nDiagonal += o.nDiagonal;
  nPrevious += o.nPrevious;
  nNext += o.nNext;
  nRows += o.nRows;
}

std::string fullyMaskedRowsWarning(const std::string& what, const std::vector<int>& rows) {
  constexpr size_t kListedRows = 5;  // rows named before "and N more"
  std::string list;
  for (size_t r = 0; r < rows.size() && r < kListedRows; ++r) list += fmt::format("{}{}", r ? ", " : "", rows[r]);
  if (rows.size() > kListedRows) list += fmt::format(" and {} more", rows.size() - kListedRows);
  return fmt::format("{}: {} fully masked row(s) ({}) have no weights; left out of the head's means", what,
                     rows.size(), list);
}

std::vector<int> separatorIndex(const std::vector<bool>& separatorKey, int nk) {
  std::vector<int> idx;
  for (int j = 0; j < nk && j < static_cast<int>(separatorKey.size()); ++j)
    if (separatorKey[static_cast<size_t>(j)]) idx.push_back(j);
  return idx;
}

void startHead(HeadAnalysis& a, int rows, int cols) {
  a.rows = rows;
  a.cols = cols;
  auto& r = a.perRow;
  for (Vec* v : {&r.entropy, &r.normalizedEntropy, &r.maxWeight, &r.maxMinGap, &r.maxMinRatio, &r.meanDistance,
                 &r.coverageK})
    v->setZero(rows);
  r.keptKeys.assign(static_cast<size_t>(rows), 0);
}

void storeRow(HeadAnalysis& a, int i, const FusedRow& f) {
  auto& r = a.perRow;
  r.entropy[i] = static_cast<float>(std::max(0.0, -f.plogp));
  r.keptKeys[static_cast<size_t>(i)] = f.kept;
  r.maxWeight[i] = f.maxWeight;
  r.maxMinGap[i] = f.maxMinGap;
  r.maxMinRatio[i] = f.maxMinRatio;
  r.meanDistance[i] = f.meanDistance;
  r.coverageK[i] = f.coverageK;
}

void finishHead(HeadAnalysis& a, const HeadRowSums& sums, int separatorKeys, const AnalysisOptions& opt) {
  auto& r = a.perRow;
  r.normalizedEntropy = normalizedFromEntropy(r.entropy, r.keptKeys);
  if (opt.unit == EntropyUnit::Bits) r.entropy /= static_cast<float>(std::numbers::ln2);
  // Offsets and shares as relativeOffsetProfile / patternShares define them.
  a.offsets = {};
  if (a.rows > 0 && a.cols > 0) {
    a.offsets.minOffset = -(a.rows - 1);
    a.offsets.mass = (sums.nRows > 0 ? Eigen::VectorXd(sums.offsets / sums.nRows) : sums.offsets).cast<float>();
  }
  a.shares = {};
  a.shares.separatorKeys = separatorKeys;
  if (sums.nDiagonal > 0) a.shares.diagonal = sums.diagonal / sums.nDiagonal;
  if (sums.nPrevious > 0) a.shares.previous = sums.previous / sums.nPrevious;
  if (sums.nNext > 0) a.shares.next = sums.next / sums.nNext;
  if (sums.nRows > 0) {
    a.shares.first = sums.first / sums.nRows;
    a.shares.separator = sums.separator / sums.nRows;
  }

  MeanMinMax h, hn, conf, gap, logRatio, dist, k, kFrac;
  int uniformRows = 0, oneHotRows = 0;
  a.emptyRows.clear();
  a.collapse = {};
  for (int i = 0; i < a.rows; ++i) {
    const int n = r.keptKeys[static_cast<size_t>(i)];
    // A row with no mass is fully masked whatever a mask says.
    if (n == 0 || !(r.maxWeight[i] > 0.0f)) {
      a.emptyRows.push_back(i);
      continue;
    }
    h.add(r.entropy[i]);
    hn.add(r.normalizedEntropy[i]);
    conf.add(r.maxWeight[i]);
    gap.add(r.maxMinGap[i]);
    logRatio.add(std::log(static_cast<double>(r.maxMinRatio[i])));
    dist.add(r.meanDistance[i]);
    k.add(r.coverageK[i]);
    kFrac.add(r.coverageK[i] / n);
    if (n >= 2) {
      ++a.collapse.rowsCounted;
      uniformRows += r.normalizedEntropy[i] > opt.collapse.uniformEntropy ? 1 : 0;
      oneHotRows += r.maxWeight[i] > opt.collapse.oneHotMass ? 1 : 0;
    }
  }
  a.entropyMean = h.mean();
  a.entropyMin = h.min;
  a.entropyMax = h.max;
  a.normalizedEntropyMean = hn.mean();
  a.confidence = conf.mean();
  a.maxMinGap = gap.mean();
  a.maxMinRatio = std::exp(logRatio.mean());
  a.meanDistance = dist.mean();
  a.coverageK = k.mean();
  a.coverageFraction = kFrac.mean();
  if (a.collapse.rowsCounted > 0) {
    a.collapse.uniformRowShare = static_cast<double>(uniformRows) / a.collapse.rowsCounted;
    a.collapse.oneHotRowShare = static_cast<double>(oneHotRows) / a.collapse.rowsCounted;
    a.collapse.nearUniform = a.collapse.uniformRowShare > opt.collapse.rowShare;
    a.collapse.nearOneHot = a.collapse.oneHotRowShare > opt.collapse.rowShare;
  }
}

}  // namespace attn
