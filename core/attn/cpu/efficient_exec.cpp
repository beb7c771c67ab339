#include "attn/cpu/efficient_exec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>

#include "attn/cpu/linear_attention.h"
#include "attn/cpu/linformer_attention.h"
#include "attn/cpu/tiled_attention.h"
#include "attn/engine/exec_path.h"
#include "attn/analysis/approximation.h"
#include "attn/metrics.h"
#include "attn/engine/random.h"
#include "attn/engine/scores.h"

namespace attn {
namespace {

// Sparse execution uses small tiles so that band/dilated/block masks skip most
// of the Nq x Nk plane; the cost then follows the allowed cells.
constexpr TileConfig kSparseTiles{64, 64};

TileScratch& scratchForThread() {
  static thread_local TileScratch s;
  return s;
}

// Rows normalized as torch.nn.functional.normalize does (norm clamped at 1e-12).
Mat unitRows(const Mat& x) {
  Mat y = x;
  for (Eigen::Index i = 0; i < y.rows(); ++i) y.row(i) /= std::max(y.row(i).norm(), 1e-12f);
  return y;
}

}  // namespace

// The head's scores as scale * q' . k' (+ bias): general folds W into the
// queries, cosine normalizes both sides; qBuf/kBuf hold the transformed rows.
HeadView tiledHeadView(const AttentionSpec& spec, const HeadResult& h, Mat& qBuf, Mat& kBuf) {
  HeadView in;
  in.q = &h.q;
  in.k = &h.k;
  if (spec.mechanism == Mechanism::General) {
    qBuf = h.q * h.scoreParams.wBilinear;
    in.q = &qBuf;
  } else if (spec.mechanism == Mechanism::Cosine) {
    qBuf = unitRows(h.q);
    kBuf = unitRows(h.k);
    in.q = &qBuf;
    in.k = &kBuf;
  }
  in.v = &h.v;
  in.scale = logitScale(spec.mechanism, h.q.cols(), spec.temperature);
  in.bias = h.logitBias.size() > 0 ? &h.logitBias : nullptr;
  in.mask = &spec.mask;
  return in;
}

namespace {

void clearIntermediates(HeadResult& h) {
  h.rawLogits.resize(0, 0);
  h.scaledLogits.resize(0, 0);
  h.maskedLogits.resize(0, 0);
}

Status runTiled(const AttentionSpec& spec, ExecPath path, std::vector<HeadResult>& heads) {
  const TileConfig cfg = path == ExecPath::Sparse ? kSparseTiles : TileConfig{};
  const int n = static_cast<int>(heads.size());
  // Exceptions (std::bad_alloc) must not leave the OpenMP region: caught per
  // head, rethrown after it.
  std::vector<std::exception_ptr> thrown(heads.size());
#pragma omp parallel for schedule(dynamic, 1)
  for (int i = 0; i < n; ++i) try {
    HeadResult& h = heads[static_cast<size_t>(i)];
    Mat qBuf, kBuf;
    const HeadView in = tiledHeadView(spec, h, qBuf, kBuf);
    RowStats st;
    clearIntermediates(h);
    if (spec.weightsHead == -1 || spec.weightsHead == i) {
      // The map is materialized: keep its scaled logits too (the logits view,
      // hover and the npz 'scores'); raw logits are scaled / logitScale.
      blockedAttentionWithWeights(in, cfg, h.weights, h.output, st, 1, &h.scaledLogits);
    } else {
      h.weights.resize(0, 0);
      flashAttention(in, cfg, scratchForThread(), h.output, st);
    }
    h.entropy = std::move(st.entropy);
    h.rowMax = std::move(st.max);
    h.fullyMaskedRows = std::move(st.fullyMaskedRows);
  } catch (...) {
    thrown[static_cast<size_t>(i)] = std::current_exception();
  }
  for (auto& e : thrown)
    if (e) std::rethrow_exception(e);
  return okStatus();
}

double relError(const Mat& a, const Mat& exact) {
  const double den = exact.cast<double>().norm();
  const double num = (a - exact).cast<double>().norm();
  return den > 0 ? num / den : num;
}

// The approximate paths take no mask or a plain causal one: every term of the
// Mask is a causal term (asked of the Mask object, not of its spec text).
bool isCausalOnly(const Mask& m) {
  return !m.isNone() && std::all_of(m.terms().begin(), m.terms().end(),
                                    [](const MaskTerm& t) { return t.kind == MaskTerm::Kind::Causal; });
}

Status checkApproximable(const AttentionSpec& spec, ExecPath path, const HeadResult& h) {
  const auto name = execPathName(path);
  const bool dotSoftmax = spec.mechanism == Mechanism::Dot || spec.mechanism == Mechanism::ScaledDot;
  if (path != ExecPath::LinearElu && !dotSoftmax)
    return Error{fmt::format("exec {} approximates dot-product softmax; mechanism '{}' is not supported",
                             name, mechanismName(spec.mechanism))};
  if (h.logitBias.size() > 0)
    return Error{fmt::format("exec {} cannot apply a positional logit bias; use naive or tiled", name)};
  if (path == ExecPath::Linformer && !spec.mask.isNone())
    return Error{fmt::format("exec linformer supports mask 'none' only (projecting along the sequence "
                             "mixes all keys); got '{}'", spec.mask.spec())};
  if (!spec.mask.isNone() && !isCausalOnly(spec.mask))
    return Error{fmt::format("exec {} supports mask 'none' or 'causal'; got '{}'", name, spec.mask.spec())};
  if (spec.randomFeatures < 0 || spec.randomFeatures > 65536)
    return Error{fmt::format("random features must be between 1 and 65536 (got {})", spec.randomFeatures)};
  if (spec.linformerSlots < 0 || spec.linformerSlots > 65536)
    return Error{fmt::format("linformer slots must be between 1 and 65536 (got {})", spec.linformerSlots)};
  return okStatus();
}

Status runApproximate(const AttentionSpec& spec, ExecPath path, std::vector<HeadResult>& heads,
                      const HeadFn& naive) {
  for (size_t i = 0; i < heads.size(); ++i) {
    HeadResult& h = heads[i];
    if (auto st = checkApproximable(spec, path, h); !st) return st;
    // Exact reference first (fills weights/output/entropy and the intermediates).
    if (auto st = naive(spec, h); !st) return st;
    const Mat exactWeights = std::move(h.weights);
    const Mat exactOutput = std::move(h.output);
    clearIntermediates(h);
    h.rowMax.resize(0);
    const int dk = static_cast<int>(h.q.cols());
    const float scale = logitScale(spec.mechanism, dk, spec.temperature);
    const bool causal = isCausalOnly(spec.mask);
    const std::string stream = fmt::format("{}/head/{}", execPathName(path), i);
    ApproxError err;
    if (path == ExecPath::Linformer) {
      const int nk = static_cast<int>(h.k.rows());
      const int slots = spec.linformerSlots > 0 ? spec.linformerSlots : std::min(nk, 32);
      const Mat e = linformerProjection(slots, nk, streamSeed(spec.seed, stream + "/E"));
      const Mat f = linformerProjection(slots, nk, streamSeed(spec.seed, stream + "/F"));
      linformerAttention(h.q, h.k, h.v, scale, e, f, h.weights, h.output);
      err.weightsFrobenius = std::numeric_limits<double>::quiet_NaN();
      err.meanRowKl = std::numeric_limits<double>::quiet_NaN();
    } else {
      Mat phiQ, phiK;
      if (path == ExecPath::Performer) {
        const int m = spec.randomFeatures > 0 ? spec.randomFeatures : 4 * dk;
        const Mat w = orthogonalRandomFeatures(m, dk, streamSeed(spec.seed, stream));
        const float root = std::sqrt(scale);  // exp(scale q.k) = exp((root q).(root k))
        phiQ = favorFeatures(h.q * root, w, true);
        phiK = favorFeatures(h.k * root, w, false);
      } else {
        phiQ = eluFeatures(h.q);
        phiK = eluFeatures(h.k);
      }
      h.output = linearAttentionOutput(phiQ, phiK, h.v, causal);
      h.weights = linearAttentionWeights(phiQ, phiK, causal);
      auto e = approximationError(exactWeights, h.weights);
      if (!e) return e.error();
      err.weightsFrobenius = e->frobenius;
      err.meanRowKl = e->meanRowKl;
    }
    err.outputRelError = relError(h.output, exactOutput);
    h.entropy = rowEntropy(h.weights);
    h.approxError = err;
  }
  return okStatus();
}

}  // namespace

Status computeHeadsEfficient(const AttentionSpec& spec, ExecPath path,
                             std::vector<HeadResult>& heads, const HeadFn& naive) {
  switch (path) {
    case ExecPath::Tiled:
    case ExecPath::Sparse: return runTiled(spec, path, heads);
    case ExecPath::Performer:
    case ExecPath::LinearElu:
    case ExecPath::Linformer: return runApproximate(spec, path, heads, naive);
    case ExecPath::Naive:
    case ExecPath::Auto: break;
  }
  for (auto& h : heads)
    if (auto st = naive(spec, h); !st) return st;
  return okStatus();
}

}  // namespace attn
