#include "attn/models/patching/activation_patching.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "attn/models/families/families.h"
#include "attn/models/patching/stacked_patches.h"
#include "attn/models/transformer_forward.h"

namespace attn::models {
namespace {

/// One encoding's pass through the model's layers: embedded once, then run with hooks; its
/// ForwardPass (the encoding, the mask, the rotary table) also runs the patched stacks.
class Pass {
 public:
  Pass(const ModelConfig& c, const ModelWeights& w, const Encoding& enc, const std::vector<uint8_t>& keep,
       const RunOptions& opt, const std::vector<std::vector<HeadEdit>>& edits)
      : f_(c, w, enc, opt, keep, edits, noDisplay_), graph_(familyGraph(c)) {
    graph_.embed(f_, embedded_);
  }

  ForwardPass& forward() { return f_; }
  const FamilyGraph& graph() const { return graph_; }

  /// Every layer on the embedding; `inputs` collects the residual stream entering each layer
  /// and the last one's output. Returns the final hidden state's last row.
  Vec run(ActivationHooks* hooks, std::vector<Mat>& inputs) {
    Mat h = embedded_;
    f_.hooks = hooks;
    AttentionResult unused;
    for (int l = 0; l < f_.config.layers; ++l) {
      inputs.push_back(h);
      graph_.layer(f_, l, h, false, unused);
    }
    inputs.push_back(h);
    f_.hooks = nullptr;
    ModelRun run;
    graph_.output(f_, h, run);
    return run.finalHidden.row(run.finalHidden.rows() - 1).transpose();
  }

 private:
  std::function<std::string(int)> noDisplay_;
  ForwardPass f_;
  FamilyGraph graph_;
  Mat embedded_;
};

Status checkRequest(const ModelConfig& c, const Encoding& clean, const Encoding& corrupt, int target,
                    int foil, const std::string& src) {
  if (c.family == Family::Bert)
    return Error{src +
                 ": activation patching compares next-token logits: it needs a causal language model "
                 "(GPT-2 or the Llama family), not a BERT-style encoder"};
  if (clean.size() != corrupt.size())
    return Error{
        fmt::format("{}: the clean text has {} tokens and the corrupt text {}; patching compares them "
                    "position by position, so they must have the same number",
                    src, clean.size(), corrupt.size())};
  for (int id : {target, foil})
    if (id < 0 || id >= c.vocabSize)
      return Error{
          fmt::format("{}: token id {} is outside the vocabulary (vocab_size {})", src, id, c.vocabSize)};
  if (target == foil) return Error{src + ": the target and the foil are the same token"};
  return okStatus();
}

/// The model's mask on `enc` as a bitmap (empty: every key visible).
Result<std::vector<uint8_t>> keepBitmap(const ModelConfig& c, const Encoding& enc, const std::string& src) {
  auto mask = modelMask(c, enc);
  if (!mask) return Error{src + ": " + mask.error().message};
  const int n = enc.size();
  return mask->isNone() ? std::vector<uint8_t>{} : mask->bitmap(n, n);
}

/// Whether no row of the mask reads a later key: then a patch at position p leaves rows < p
/// as they were, and a patched run needs only rows p.. (keep empty: every key, not causal).
bool causalMask(const std::vector<uint8_t>& keep, int n) {
  if (keep.empty()) return false;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (keep[static_cast<size_t>(i) * static_cast<size_t>(n) + static_cast<size_t>(j)]) return false;
  return true;
}

enum class PatchSite { Residual, Heads, Mlp };

/// What the clean and the corrupt runs keep for the patches (per layer; inputs also the
/// final residual stream, index layers; keys and values: the corrupt run's).
struct RecordedRuns {
  std::vector<Mat> cleanInputs, cleanHeads, cleanMlp, corruptInputs, corruptMlp, keys, values;
};

/// What every sweep reads.
struct PatchContext {
  const ModelConfig& config;
  ForwardPass& pass;  // the corrupt run's
  const FamilyGraph& graph;
  const RecordedRuns& runs;
  const Vec& direction;  // lm_head(target) - lm_head(foil)
  double lo, hi;         // the corrupt and the clean run's logit differences
  int n, total;
  bool causal;
  const ProgressFn& progress;
  const std::string& src;
};

/// One patched run: its cell (layer, position or head), the layer its stack starts at and
/// the first position it runs (rows before it are the corrupt run's).
struct PatchJob {
  int layer = 0, index = 0, start = 0, first = 0;
};

/// Every patch of a site, by start layer. A residual patch at (l, p) starts at layer l; an
/// MLP patch at (l, p) changes only row p of layer l's output (the MLP is row-wise and comes
/// after the attention), so it is a residual patch at (l + 1, p) of that row; a head patch
/// changes every row from layer l's attention on.
std::vector<PatchJob> patchJobs(PatchSite site, int layers, int n, int heads, bool causal) {
  std::vector<PatchJob> jobs;
  for (int l = 0; l < layers; ++l)
    for (int i = 0; i < (site == PatchSite::Heads ? heads : n); ++i)
      jobs.push_back({l, i, site == PatchSite::Mlp ? l + 1 : l, site != PatchSite::Heads && causal ? i : 0});
  return jobs;
}

/// A job's stacked rows: the corrupt run's residual stream entering its start layer, rows
/// first.., with the patch applied to the residual-stream and MLP sites' row.
void jobRows(PatchSite site, const PatchJob& j, const RecordedRuns& r, int n, Mat& h, Eigen::Index row0) {
  const int m = n - j.first;
  h.middleRows(row0, m) = r.corruptInputs[static_cast<size_t>(j.start)].middleRows(j.first, m);
  const Eigen::Index at = row0 + j.index - j.first;
  const size_t l = static_cast<size_t>(j.layer);
  if (site == PatchSite::Residual) h.row(at) = r.cleanInputs[l].row(j.index);
  if (site == PatchSite::Mlp) h.row(at) += r.cleanMlp[l].row(j.index) - r.corruptMlp[l].row(j.index);
}

/// The most stacked rows at a time: about 256 MB of activations (the residual, norm, q/k/v,
/// heads, output and the MLP's hidden rows), at least one whole run, and at most 1024 rows:
/// the token GEMM's largest block (products/token_gemm.h; past it the products fall back to
/// Eigen's, which repacks the weight), and a chunk between two progress checks.
int stackRows(const ModelConfig& c, int n) {
  const int64_t perRow = 4 * (10 * static_cast<int64_t>(c.dModel) + 2 * static_cast<int64_t>(c.intermediate));
  const int64_t rows = (int64_t{256} << 20) / std::max<int64_t>(perRow, 1);
  return static_cast<int>(std::max<int64_t>(n, std::min<int64_t>(rows, 1024)));
}

/// Fills `out` [layers, cols] with the recovered fraction of each of the site's patched runs,
/// as stacks of runs that start at the same layer.
Status sweep(PatchSite site, Mat& out, const PatchContext& ctx, int& done, std::string_view stage) {
  const ModelConfig& c = ctx.config;
  const int n = ctx.n, cols = site == PatchSite::Heads ? c.heads : n, maxRows = stackRows(c, n);
  out.resize(c.layers, cols);
  const std::vector<PatchJob> jobs = patchJobs(site, c.layers, n, c.heads, ctx.causal);
  for (size_t j0 = 0; j0 < jobs.size();) {
    if (ctx.progress && !ctx.progress(static_cast<double>(done) / ctx.total, stage))
      return Error{ctx.src + ": cancelled"};
    StackedPatches sp;
    sp.n = n;
    sp.keys = &ctx.runs.keys;
    sp.values = &ctx.runs.values;
    sp.heads = &ctx.runs.cleanHeads;
    int rows = 0;
    size_t j1 = j0;
    for (; j1 < jobs.size() && jobs[j1].start == jobs[j0].start; ++j1) {
      const int m = n - jobs[j1].first;
      if (j1 > j0 && rows + m > maxRows) break;
      PatchSegment seg{jobs[j1].first, rows, -1, -1};
      if (site == PatchSite::Heads) seg.headLayer = jobs[j1].layer, seg.head = jobs[j1].index;
      sp.segments.push_back(seg);
      rows += m;
    }
    Mat h(rows, c.dModel);
    for (size_t j = j0; j < j1; ++j) jobRows(site, jobs[j], ctx.runs, n, h, sp.segments[j - j0].row0);
    const Mat last = runStacked(ctx.pass, ctx.graph, sp, jobs[j0].start, std::move(h));
    for (size_t j = j0; j < j1; ++j) {
      const double diff = last.row(static_cast<Eigen::Index>(j - j0)).transpose().dot(ctx.direction);
      out(jobs[j].layer, jobs[j].index) = static_cast<float>((diff - ctx.lo) / (ctx.hi - ctx.lo));
    }
    done += static_cast<int>(j1 - j0);
    j0 = j1;
  }
  return okStatus();
}

}  // namespace

Result<PatchingResult> activationPatching(const ModelConfig& c, const ModelWeights& w, const Encoding& clean,
                                          const Encoding& corrupt, int target, int foil,
                                          const PatchingOptions& options, const std::string& src,
                                          const ProgressFn& progress) {
  if (auto st = checkRequest(c, clean, corrupt, target, foil, src); !st) return st.error();
  if (auto st = checkModelEncoding(c, clean, src + " (clean text)"); !st) return st.error();
  if (auto st = checkModelEncoding(c, corrupt, src + " (corrupt text)"); !st) return st.error();
  const int n = clean.size(), L = c.layers, H = c.heads;
  auto cleanKeep = keepBitmap(c, clean, src), corruptKeep = keepBitmap(c, corrupt, src);
  if (!cleanKeep) return cleanKeep.error();
  if (!corruptKeep) return corruptKeep.error();
  RunOptions opt;
  opt.topK = 0;
  opt.keepQkv = false;
  opt.keepAttention = false;
  const std::vector<std::vector<HeadEdit>> edits(static_cast<size_t>(L));
  Vec tgt(c.dModel), fl(c.dModel);
  w.lmHead.rowTo(target, tgt.data());
  w.lmHead.rowTo(foil, fl.data());
  const Vec direction = tgt - fl;
  auto diff = [&](const Vec& last) { return static_cast<double>(last.dot(direction)); };

  Pass cleanPass(c, w, clean, *cleanKeep, opt, edits), corruptPass(c, w, corrupt, *corruptKeep, opt, edits);
  RecordedRuns runs;
  ActivationHooks cleanHooks, corruptHooks;
  cleanHooks.recordHeads = &runs.cleanHeads;
  cleanHooks.recordMlp = &runs.cleanMlp;
  corruptHooks.recordMlp = &runs.corruptMlp;
  corruptHooks.recordKeys = &runs.keys;
  corruptHooks.recordValues = &runs.values;
  PatchingResult out;
  out.cleanDiff = diff(cleanPass.run(&cleanHooks, runs.cleanInputs));
  out.corruptDiff = diff(corruptPass.run(&corruptHooks, runs.corruptInputs));
  if (!(std::abs(out.cleanDiff - out.corruptDiff) > 1e-6))
    return Error{
        fmt::format("{}: the clean and the corrupt text give the same logit difference ({:.6g}): "
                    "there is nothing for patching to recover; choose texts or tokens that differ",
                    src, out.cleanDiff)};

  const int total = (options.residual ? L * n : 0) + (options.heads ? L * H : 0) + (options.mlp ? L * n : 0);
  const PatchContext ctx{c,
                         corruptPass.forward(),
                         corruptPass.graph(),
                         runs,
                         direction,
                         out.corruptDiff,
                         out.cleanDiff,
                         n,
                         total,
                         causalMask(*corruptKeep, n),
                         progress,
                         src};
  int done = 0;
  const std::pair<PatchSite, Mat*> sites[] = {
      {PatchSite::Residual, options.residual ? &out.residual : nullptr},
      {PatchSite::Heads, options.heads ? &out.heads : nullptr},
      {PatchSite::Mlp, options.mlp ? &out.mlp : nullptr}};
  for (const auto& [site, map] : sites) {
    if (!map) continue;
    const char* stage = site == PatchSite::Residual ? "patching the residual stream"
                        : site == PatchSite::Heads  ? "patching heads"
                                                    : "patching MLPs";
    if (auto st = sweep(site, *map, ctx, done, stage); !st) return st.error();
  }
  if (progress && !progress(1.0, "done")) return Error{src + ": cancelled"};
  return out;
}

}  // namespace attn::models
