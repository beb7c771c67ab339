#include "attn/models/experiments/head_experiments.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <functional>
#include <numeric>
#include <optional>

#include "attn/models/gradients/gradient_attribution.h"

namespace attn::models {
namespace {

bool realToken(const Encoding& e, int i) {
  return e.attention.empty() || e.attention[static_cast<size_t>(i)] != 0;
}

/// log-softmax of one logits row, in double.
std::vector<double> logSoftmax(const Mat& logits, int row) {
  const int V = static_cast<int>(logits.cols());
  std::vector<double> out(static_cast<size_t>(V));
  double m = -std::numeric_limits<double>::infinity();
  for (int j = 0; j < V; ++j) m = std::max(m, static_cast<double>(logits(row, j)));
  double sum = 0;
  for (int j = 0; j < V; ++j) sum += std::exp(static_cast<double>(logits(row, j)) - m);
  const double lse = m + std::log(sum);
  for (int j = 0; j < V; ++j) out[static_cast<size_t>(j)] = static_cast<double>(logits(row, j)) - lse;
  return out;
}

std::vector<TopToken> top5(const std::vector<double>& logp, const HfTokenizer& tok) {
  std::vector<int> idx(logp.size());
  std::iota(idx.begin(), idx.end(), 0);
  const size_t k = std::min<size_t>(5, idx.size());
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k), idx.end(), [&](int a, int b) {
    return logp[static_cast<size_t>(a)] != logp[static_cast<size_t>(b)] ? logp[static_cast<size_t>(a)] > logp[static_cast<size_t>(b)]
                                                                          : a < b;
  });
  std::vector<TopToken> out;
  for (size_t r = 0; r < k; ++r) {
    const int id = idx[r];
    out.push_back(TopToken{id, tok.displayText(id), static_cast<float>(std::exp(logp[static_cast<size_t>(id)]))});
  }
  return out;
}

/// ||B - A||_F / ||A||_F over the real tokens' rows.
double relativeChange(const Mat& a, const Mat& b, const Encoding& enc) {
  double num = 0, den = 0;
  for (int i = 0; i < static_cast<int>(a.rows()); ++i) {
    if (!realToken(enc, i)) continue;
    num += (b.row(i) - a.row(i)).cast<double>().squaredNorm();
    den += a.row(i).cast<double>().squaredNorm();
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

}  // namespace

Result<double> meanNextTokenLoss(const ModelRun& run) {
  const Encoding& e = run.encoding;
  if (run.logits.size() == 0 && run.nextTokenLoss) return *run.nextTokenLoss;
  if (run.logits.rows() != e.size() || run.logits.cols() == 0)
    return Error{"next-token loss: the run kept no logits (a causal model run with keepFullLogits)"};
  double total = 0;
  int count = 0;
  // One log-sum-exp per row (vectorized float exp, summed in double): this runs once per
  // forward pass of the importance loop, over N x vocab logits.
#pragma omp parallel for schedule(static) reduction(+ : total, count)
  for (int i = 0; i < e.size() - 1; ++i) {
    if (!realToken(e, i) || !realToken(e, i + 1)) continue;
    const auto row = run.logits.row(i).array();
    const float m = row.maxCoeff();
    const double lse = m + std::log(static_cast<double>((row - m).exp().sum()));
    total += lse - run.logits(i, e.ids[static_cast<size_t>(i + 1)]);
    ++count;
  }
  if (count == 0) return Error{"next-token loss: the text needs at least 2 tokens"};
  return total / count;
}

Result<RunComparison> compareRuns(const Model& model, const ModelRun& before, const ModelRun& after, int position) {
  const ModelInfo& info = model.info();
  const Encoding& enc = before.encoding;
  if (after.encoding.ids != enc.ids) return Error{"compare: the two runs are not of the same text"};
  if (before.layers.size() != after.layers.size() || before.firstLayer != after.firstLayer)
    return Error{"compare: the two runs kept different layers"};
  RunComparison c;
  c.causal = info.causal;
  c.weights.resize(before.layers.size());
  for (size_t l = 0; l < before.layers.size(); ++l) {
    const auto& A = before.layers[l].heads;
    const auto& B = after.layers[l].heads;
    c.weights[l].resize(A.size());
    for (size_t h = 0; h < A.size() && h < B.size(); ++h) {
      if (A[h].weights.size() != B[h].weights.size() || A[h].weights.size() == 0) continue;
      const auto d = (B[h].weights - A[h].weights).cwiseAbs();
      c.weights[l][h] = HeadChange{d.maxCoeff(), static_cast<float>(d.cast<double>().mean())};
      if (c.firstChangedLayer < 0 && c.weights[l][h].maxAbs > 0)
        c.firstChangedLayer = static_cast<int>(l) + before.firstLayer;
    }
  }
  if (before.finalHidden.rows() == after.finalHidden.rows() && before.finalHidden.size() > 0) {
    c.hiddenChange = relativeChange(before.finalHidden, after.finalHidden, enc);
    c.hiddenMaxAbs = (after.finalHidden - before.finalHidden).cwiseAbs().maxCoeff();
  }
  if (info.causal) {
    if (before.logits.rows() != enc.size() || after.logits.rows() != enc.size())
      return Error{"compare: causal runs need their full logits (keepFullLogits)"};
    int last = enc.size() - 1;
    while (last > 0 && !realToken(enc, last)) --last;
    c.position = position < 0 ? last : position;
    if (c.position >= enc.size())
      return Error{fmt::format("compare: position {} is past the text's {} tokens", c.position + 1, enc.size())};
    const auto p = logSoftmax(before.logits, c.position), q = logSoftmax(after.logits, c.position);
    double kl = 0;
    for (size_t j = 0; j < p.size(); ++j) kl += std::exp(p[j]) * (p[j] - q[j]);
    c.kl = std::max(kl, 0.0);
    c.topBefore = top5(p, model.tokenizer());
    c.topAfter = top5(q, model.tokenizer());
    auto lb = meanNextTokenLoss(before), la = meanNextTokenLoss(after);
    if (lb && la) {
      c.hasLoss = true;
      c.lossBefore = *lb;
      c.lossAfter = *la;
    }
  } else if (before.finalHidden.rows() > 0) {
    const auto a = before.finalHidden.row(0).cast<double>(), b = after.finalHidden.row(0).cast<double>();
    c.clsChange = a.norm() > 0 ? (b - a).norm() / a.norm() : (b - a).norm();
    c.clsCosine = a.norm() > 0 && b.norm() > 0 ? a.dot(b) / (a.norm() * b.norm()) : 0.0;
    if (before.maskPositions != after.maskPositions || before.maskLogits.rows() != after.maskLogits.rows() ||
        before.maskLogits.cols() != after.maskLogits.cols())
      return Error{"compare: the two runs kept different masked-token predictions"};
    for (size_t m = 0; m < before.maskPositions.size() && static_cast<Eigen::Index>(m) < before.maskLogits.rows(); ++m) {
      const auto p = logSoftmax(before.maskLogits, static_cast<int>(m)), q = logSoftmax(after.maskLogits, static_cast<int>(m));
      MaskChange mc;
      mc.position = before.maskPositions[m];
      double kl = 0;
      for (size_t j = 0; j < p.size(); ++j) kl += std::exp(p[j]) * (p[j] - q[j]);
      mc.kl = std::max(kl, 0.0);
      mc.topBefore = top5(p, model.tokenizer());
      mc.topAfter = top5(q, model.tokenizer());
      c.masked.push_back(std::move(mc));
    }
  }
  return c;
}

namespace {

/// Independent forward passes (each head alone, then each curve point), side by side: one per
/// thread, each single-threaded (no fork/join inside every small product), every thread
/// with its own copy of the prefix cache (a run records its reuse there). Progress counts
/// every pass of every batch; the first failure or a cancel stops the rest.
class ImportancePasses {
 public:
  using Measure = std::function<Result<double>(const ModelRun&)>;
  ImportancePasses(const Model& model, const Encoding& enc, const RunOptions& opt, const ForwardCache& cache,
                   const ImportanceOptions& options, const ProgressFn& progress, double total,
                   Measure measure)
      : model_(model),
        enc_(enc),
        opt_(opt),
        cache_(cache),
        options_(options),
        progress_(progress),
        total_(total),
        measure_(std::move(measure)) {}

  /// values[j]: pass j's measure; reused[j]: the layers it took from the cache.
  Status run(const std::vector<std::vector<HeadIntervention>>& passes, std::vector<double>& values,
             std::vector<int>& reused, const std::string& stage) {
    const int count = static_cast<int>(passes.size());
    values.assign(passes.size(), 0.0);
    reused.assign(passes.size(), 0);
    const bool parallel = options_.parallelHeads && count > 1;
#pragma omp parallel if (parallel)
    {
      ForwardCache local;
      RunOptions o = opt_;
      if (options_.usePrefixCache) {
        local = cache_;
        o.cache = &local;
      }
#pragma omp for schedule(dynamic, 1)
      for (int j = 0; j < count; ++j) {
        if (stop_.load()) continue;
        o.interventions = passes[static_cast<size_t>(j)];
        if (!runOne(o, values[static_cast<size_t>(j)])) continue;
        reused[static_cast<size_t>(j)] = o.cache ? o.cache->reusedLayers : 0;
        countDone(stage);
      }
    }
    if (thrown_) std::rethrow_exception(thrown_);
    if (failure_) return *failure_;
    if (stop_.load()) return Error{"head importance: cancelled"};
    return okStatus();
  }

 private:
  /// One pass; false (and the rest stop) when it failed or threw.
  bool runOne(const RunOptions& o, double& value) {
    Result<double> v = Error{""};
    try {  // an exception must not leave the parallel region: it is rethrown after it
      auto r = model_.run(enc_, o);
      v = r ? measure_(*r) : Result<double>(r.error());
    } catch (...) {
#pragma omp critical(head_importance_failure)
      if (!thrown_) thrown_ = std::current_exception();
      stop_.store(true);
      return false;
    }
    if (!v) {
#pragma omp critical(head_importance_failure)
      if (!failure_) failure_ = v.error();
      stop_.store(true);
      return false;
    }
    value = *v;
    return true;
  }

  void countDone(const std::string& stage) {
#pragma omp critical(head_importance_progress)
    {
      const int d = ++done_;  // counted inside, so the fractions reported only grow
      if (progress_ && !progress_(d / total_, stage)) stop_.store(true);
    }
  }

  const Model& model_;
  const Encoding& enc_;
  const RunOptions& opt_;
  const ForwardCache& cache_;
  const ImportanceOptions& options_;
  const ProgressFn& progress_;
  const double total_;
  const Measure measure_;
  int done_ = 1;  // the base run
  std::atomic<bool> stop_{false};
  std::optional<Error> failure_;
  std::exception_ptr thrown_;
};

/// The runs of the importance loop keep no attention and no predictions; causal models
/// compute the loss straight from the lm_head panels, no [N, vocab] logits.
RunOptions importanceRunOptions(bool causal, ForwardCache* cache) {
  RunOptions opt;
  opt.keepQkv = false;
  opt.keepAttention = false;
  opt.topK = 0;
  opt.maskTopK = 0;
  opt.nextTokenLoss = causal;
  opt.cache = cache;
  return opt;
}

void describeMeasures(HeadImportance& out, bool causal, bool gradient) {
  out.measure = gradient ? "|d loss / d head gate| of the mean next-token loss (Michel et al. 2019, gate "
                           "gradients)"
                : causal
                    ? "increase of the mean next-token loss (nats) when the head alone is zeroed (ablation "
                      "estimate, no gradients)"
                    : "relative change of the final hidden states when the head alone is zeroed (ablation "
                      "estimate, no gradients)";
  out.curveMeasure = causal ? "mean next-token loss (nats)" : "relative change of the final hidden states";
}

/// Michel et al. 2019, eq. 2 for one text: I_h = |d loss / d xi_h|, one backward pass.
Status gateGradientImportance(const Model& model, const Encoding& enc, HeadImportance& out) {
  GradientOptions g;
  g.objective = GradientObjective::NextTokenLoss;
  g.integrated = false;
  auto grads = model.gradients(enc, 0, g);
  if (!grads) return grads.error();
  out.importance = headGateGradients(*grads).cwiseAbs();
  return okStatus();
}

/// Each head alone ablated, earliest layers first: they recompute the most.
Status ablateEachHead(ImportancePasses& passes, int L, int H, double baseline, HeadImportance& out) {
  std::vector<std::vector<HeadIntervention>> runs;
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) runs.push_back({HeadIntervention{InterventionKind::Ablate, l, h, 1.0f, {}}});
  std::vector<double> values;
  std::vector<int> reused;
  if (auto st = passes.run(runs, values, reused, fmt::format("ablating {} heads", L * H)); !st) return st;
  for (int j = 0; j < L * H; ++j) {
    out.importance(j / H, j % H) = static_cast<float>(values[static_cast<size_t>(j)] - baseline);
    out.reusedLayers += reused[static_cast<size_t>(j)];
  }
  out.forwardPasses += L * H;
  return okStatus();
}

/// The pruning curve (Michel et al. 2019, "Are Sixteen Heads Really Better than One?"):
/// the k least important heads ablated together, k from 0 to every head in `steps` steps.
Status pruningCurve(ImportancePasses& passes, int L, int H, int steps, double baseline, HeadImportance& out) {
  std::vector<int> order(static_cast<size_t>(L * H));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return out.importance(a / H, a % H) < out.importance(b / H, b % H); });
  std::vector<int> removed;
  std::vector<std::vector<HeadIntervention>> runs;
  for (int s = 0; s < steps + 1; ++s) {
    const int k = static_cast<int>(std::lround(static_cast<double>(s) * L * H / steps));
    removed.push_back(k);
    if (k == 0) continue;
    std::vector<HeadIntervention> ivs;
    for (int i = 0; i < k; ++i)
      ivs.push_back(HeadIntervention{InterventionKind::Ablate,
                                     order[static_cast<size_t>(i)] / H,
                                     order[static_cast<size_t>(i)] % H,
                                     1.0f,
                                     {}});
    runs.push_back(std::move(ivs));
  }
  std::vector<double> values;
  std::vector<int> reused;
  if (auto st = passes.run(runs, values, reused, "pruning curve"); !st) return st;
  size_t next = 0;
  for (int k : removed) {
    PruningPoint p{static_cast<double>(k) / (L * H), k, baseline};
    if (k > 0) {
      p.value = values[next];
      out.reusedLayers += reused[next];
      ++out.forwardPasses;
      ++next;
    }
    out.curve.push_back(p);
  }
  return okStatus();
}

}  // namespace

Result<HeadImportance> headImportance(const Model& model, const Encoding& enc,
                                      const ImportanceOptions& options, const ProgressFn& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  const ModelInfo& info = model.info();
  const int L = info.layers, H = info.heads;
  HeadImportance out;
  const bool gradient = options.method == ImportanceMethod::GateGradient;
  if (gradient && !info.causal)
    return Error{
        fmt::format("{}: gate-gradient importance differentiates the next-token loss of a causal model; "
                    "{} is bidirectional (use the ablation method)",
                    info.dir, info.name)};
  describeMeasures(out, info.causal, gradient);
  ForwardCache cache;
  const RunOptions opt = importanceRunOptions(info.causal, options.usePrefixCache ? &cache : nullptr);
  const int curvePoints = options.curveSteps > 0 ? options.curveSteps + 1 : 0;
  const double total = 1.0 + (gradient ? 1.0 : L * H) + curvePoints;
  if (progress && !progress(0.0, "running the model")) return Error{"head importance: cancelled"};
  auto base = model.run(enc, opt);
  if (!base) return base.error();
  ++out.forwardPasses;
  // The value a run is measured by: loss (causal) or change from the base run (encoder).
  auto measure = [&](const ModelRun& r) -> Result<double> {
    if (info.causal) return meanNextTokenLoss(r);
    return relativeChange(base->finalHidden, r.finalHidden, enc);
  };
  double baseline = 0;
  if (info.causal) {
    auto b = measure(*base);
    if (!b) return b.error();
    baseline = *b;
  }
  out.baseline = baseline;
  out.importance = Mat::Zero(L, H);
  ImportancePasses passes(model, enc, opt, cache, options, progress, total, measure);
  if (gradient) {
    if (auto st = gateGradientImportance(model, enc, out); !st) return st.error();
    if (progress && !progress(2.0 / total, "gate gradients")) return Error{"head importance: cancelled"};
  } else if (auto st = ablateEachHead(passes, L, H, baseline, out); !st) {
    return st.error();
  }
  if (curvePoints > 0)
    if (auto st = pruningCurve(passes, L, H, options.curveSteps, baseline, out); !st) return st.error();
  if (progress && !progress(1.0, "done")) return Error{"head importance: cancelled"};
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace attn::models
