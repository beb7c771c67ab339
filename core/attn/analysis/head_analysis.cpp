#include "attn/analysis/head_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>

#include "attn/analysis/head_rows.h"
#include "attn/analysis/head_similarity.h"
#include "attn/engine.h"

namespace attn {
namespace {

constexpr int kListedRows = 5;  // rows named in one warning before "and N more"

// Sum of n floats in double with eight independent accumulators: one
// dependency chain (Eigen's cast<double>().sum()) is latency-bound, and in the
// engine's shared library GCC kept that one accumulator in memory (much slower
// than the same line in a static build).
double sumInDouble(const float* p, Eigen::Index n) {
  double acc[8] = {};
  Eigen::Index j = 0;
  for (; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; ++k) acc[k] += static_cast<double>(p[j + k]);
  for (; j < n; ++j) acc[0] += static_cast<double>(p[j]);
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

// Non-finite or negative entries -> 0, rows off 1 -> rescaled; warns about
// both. Returns a repaired copy only when something needed repair, so the
// common case (engine output, clean files) never copies an N x N matrix.
std::optional<Mat> sanitize(const Mat& w, const AnalysisOptions& opt, const std::string& what,
                            std::vector<std::string>& warnings) {
  int bad = 0;
  for (Eigen::Index i = 0; i < w.rows(); ++i)
    for (Eigen::Index j = 0; j < w.cols(); ++j)
      if (!std::isfinite(w(i, j)) || w(i, j) < 0.0f) ++bad;
  std::optional<Mat> out;
  if (bad > 0) {
    warnings.push_back(fmt::format("{}: {} weight(s) negative or not finite, counted as 0", what, bad));
    out = w;
    for (Eigen::Index i = 0; i < w.rows(); ++i)
      for (Eigen::Index j = 0; j < w.cols(); ++j)
        if (!std::isfinite(w(i, j)) || w(i, j) < 0.0f) (*out)(i, j) = 0.0f;
  }
  const Mat& cur = out ? *out : w;
  if (auto msg = rowSumWarning(cur, opt.rowSumTolerance, what); !msg.empty()) {
    warnings.push_back(std::move(msg));
    if (!out) out = w;
    for (Eigen::Index i = 0; i < out->rows(); ++i) {
      const double s = out->row(i).cast<double>().sum();
      if (s > 0.0) out->row(i) = (out->row(i).cast<double>() / s).cast<float>();
    }
  }
  return out;
}

// Every row measure from one visit of each row (fused_rows.h); rows shared
// among the OpenMP threads (heads run one after another: one level only).
HeadAnalysis analyzeHead(const Mat& w, const KeepMask& keep, const std::vector<bool>& sepKeys,
                         const AnalysisOptions& opt) {
  HeadAnalysis a;
  const int nq = static_cast<int>(w.rows()), nk = static_cast<int>(w.cols());
  startHead(a, nq, nk);
  const bool masked = keep.size() > 0 && keep.rows() == w.rows() && keep.cols() == w.cols();
  const std::vector<int> sepIdx = separatorIndex(sepKeys, nk);
  HeadRowSums total;
  total.reset(nq, nk);
#pragma omp parallel if (static_cast<long long>(nq) * nk >= (1LL << 16))
  {
    HeadRowSums local;
    local.reset(nq, nk);
    FusedRowScratch scratch;
#pragma omp for schedule(dynamic, 16)
    for (int i = 0; i < nq; ++i) {
      const float* row = nk > 0 ? &w(i, 0) : nullptr;
      const FusedRow f = measureRow(row, nk, i, masked ? &keep(i, 0) : nullptr, opt.coverageLevel, scratch);
      storeRow(a, i, f);
      if (f.hasMass) local.addRow(row, nk, i, nq, sepIdx);
    }
#pragma omp critical(attn_analyze_head)
    total.merge(local);
  }
  finishHead(a, total, static_cast<int>(sepIdx.size()), opt);
  return a;
}

}  // namespace

std::string rowSumWarning(const Eigen::Ref<const Mat>& weights, double tolerance, const std::string& what) {
  std::vector<std::string> listed;
  int off = 0, worst = -1;
  double worstDev = 0.0, worstSum = 0.0;
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    const double s = sumInDouble(weights.row(i).data(), weights.cols());  // rows are contiguous (row-major)
    if (s == 0.0) continue;  // fully masked: expected, reported elsewhere
    const double dev = std::abs(s - 1.0);
    if (!(dev > tolerance)) continue;
    if (off++ < kListedRows) listed.push_back(fmt::format("row {} sums to {:.4g}", i, s));
    if (dev > worstDev) {
      worstDev = dev;
      worst = static_cast<int>(i);
      worstSum = s;
    }
  }
  if (off == 0) return {};
  std::string msg = fmt::format("{}: {} row(s) do not sum to 1 (", what, off);
  for (size_t k = 0; k < listed.size(); ++k) msg += (k ? ", " : "") + listed[k];
  if (off > kListedRows) msg += fmt::format(", and {} more", off - kListedRows);
  msg += fmt::format("; largest deviation {:.4g} at row {}, sum {:.4g}); measures use them rescaled to 1", worstDev,
                     worst, worstSum);
  return msg;
}

namespace {

// Engine heads from the metrics-only (tiled) path carry row entropy but no
// weights: those heads get their entropy measures and nothing else.
HeadAnalysis entropyOnlyHead(const Vec& entropyNats, const AnalysisOptions& opt) {
  HeadAnalysis a;
  a.rows = static_cast<int>(entropyNats.size());
  const float scale = opt.unit == EntropyUnit::Bits ? static_cast<float>(1.0 / std::log(2.0)) : 1.0f;
  a.perRow.entropy = entropyNats * scale;
  MeanMinMax h;
  for (Eigen::Index i = 0; i < a.perRow.entropy.size(); ++i) h.add(a.perRow.entropy[i]);
  a.entropyMean = h.mean();
  a.entropyMin = h.min;
  a.entropyMax = h.max;
  return a;
}

Analysis analyzeHeadsImpl(const std::vector<const Mat*>& heads, const std::vector<std::string>& keyTokens,
                          const std::vector<KeepMask>& keep, const AnalysisOptions& options, const std::string& label,
                          const std::vector<const Vec*>& entropyOnly, int nkHint) {
  Analysis out;
  out.options = options;
  for (const Mat* w : heads)
    if (w->size() > 0) {
      out.nq = static_cast<int>(w->rows());
      out.nk = static_cast<int>(w->cols());
      break;
    }
  if (out.nk == 0) out.nk = nkHint;
  out.uniformBound = uniformEntropy(out.nk, options.unit);
  const auto sepKeys = separatorKeys(keyTokens, out.nk);
  std::vector<std::optional<Mat>> repaired(heads.size());
  std::vector<const Mat*> clean(heads.size());
  const Mat none;
  for (size_t h = 0; h < heads.size(); ++h) {
    const std::string what = fmt::format("{}head {}", label, h + 1);
    const Mat& w = *heads[h];
    clean[h] = &none;
    if (w.size() == 0 && h < entropyOnly.size() && entropyOnly[h] && entropyOnly[h]->size() > 0) {
      out.heads.push_back(entropyOnlyHead(*entropyOnly[h], options));
      continue;
    }
    if (w.size() == 0) {
      out.warnings.push_back(fmt::format("{} is empty ({}x{}): its measures are 0", what, w.rows(), w.cols()));
      out.heads.emplace_back();
      out.heads.back().rows = static_cast<int>(w.rows());
      out.heads.back().cols = static_cast<int>(w.cols());
      continue;
    }
    repaired[h] = sanitize(w, options, what, out.warnings);
    clean[h] = repaired[h] ? &*repaired[h] : &w;
    const KeepMask noMask;
    const KeepMask& k = h < keep.size() ? keep[h] : noMask;
    out.heads.push_back(analyzeHead(*clean[h], k, sepKeys, options));
    const auto& empty = out.heads.back().emptyRows;
    if (!empty.empty()) out.warnings.push_back(fullyMaskedRowsWarning(what, empty));
  }
  bool sameShape = true;
  for (const Mat* w : clean)
    sameShape = sameShape && (w->size() == 0 || (w->rows() == out.nq && w->cols() == out.nk));
  if (options.headSimilarity) {
    out.headDivergence = headSimilarityMatrix(clean, options.unit, options.divergence, &out.divergenceInfo);
    out.headOrder = similarityOrder(out.headDivergence);
    if (!sameShape && heads.size() > 1)
      out.warnings.push_back(label + "heads differ in shape: divergence between them is left at 0");
  }
  return out;
}

std::vector<const Mat*> pointers(const std::vector<Mat>& mats) {
  std::vector<const Mat*> p;
  for (const Mat& m : mats) p.push_back(&m);
  return p;
}

}  // namespace

Analysis analyzeHeads(const std::vector<Mat>& heads, const std::vector<std::string>& keyTokens,
                      const std::vector<KeepMask>& keep, const AnalysisOptions& options, const std::string& label) {
  return analyzeHeadsImpl(pointers(heads), keyTokens, keep, options, label, {}, 0);
}

Analysis analyzeResult(const AttentionResult& result, const AnalysisOptions& options) {
  std::vector<const Mat*> weights;
  std::vector<KeepMask> keep;
  std::vector<const Vec*> entropyOnly;
  int metricsOnly = 0;
  for (const auto& h : result.heads) {
    weights.push_back(&h.weights);
    keep.push_back(h.maskedLogits.size() > 0 && h.maskedLogits.size() == h.weights.size()
                       ? keepMaskFromLogits(h.maskedLogits)
                       : KeepMask{});
    entropyOnly.push_back(&h.entropy);
    metricsOnly += h.weights.size() == 0 && h.entropy.size() > 0 ? 1 : 0;
  }
  Analysis an = analyzeHeadsImpl(weights, result.keyTokens, keep, options, "", entropyOnly,
                                 static_cast<int>(result.keyTokens.size()));
  if (metricsOnly > 0)
    an.warnings.push_back(fmt::format("{} head(s) ran on the metrics-only path (weights not materialized): "
                                      "only their row entropy is measured; other measures read 0",
                                      metricsOnly));
  return an;
}

LayeredAnalysis analyzeLayers(const LayeredWeights& layers, const std::vector<std::string>& keyTokens,
                              const AnalysisOptions& options) {
  LayeredAnalysis out;
  for (size_t l = 0; l < layers.size(); ++l) {
    out.layers.push_back(analyzeHeads(layers[l], keyTokens, {}, options, fmt::format("layer {} ", l + 1)));
    const auto& w = out.layers.back().warnings;
    out.warnings.insert(out.warnings.end(), w.begin(), w.end());
  }
  // Rollout and flow run on the same rescaled rows the per-head measures use.
  LayeredWeights repaired;
  const LayeredWeights* clean = &layers;
  for (size_t l = 0; l < layers.size() && clean == &layers; ++l)
    for (const Mat& w : layers[l]) {
      std::vector<std::string> ignored;  // already reported above
      if (w.size() > 0 && sanitize(w, options, "", ignored)) {
        clean = &repaired;
        break;
      }
    }
  if (clean == &repaired) {
    repaired = layers;
    for (auto& heads : repaired)
      for (Mat& w : heads) {
        std::vector<std::string> ignored;
        if (w.size() == 0) continue;
        if (auto fixed = sanitize(w, options, "", ignored)) w = std::move(*fixed);
      }
  }
  if (auto r = attentionRollout(*clean)) {
    out.rollout = std::move(r).value();
  } else {
    out.warnings.push_back("rollout: " + r.error().message);
  }
  if (out.rollout.empty()) {
    out.flowNote = "no rollout, so no flow";
  } else if (auto f = attentionFlow(*clean)) {
    out.flow = std::move(f).value();
  } else {
    out.flowNote = f.error().message;
  }
  return out;
}

}  // namespace attn
