#include "attn/models/patching/activation_patching.h"

#include <fmt/format.h>

#include <cmath>

#include "attn/models/families/families.h"
#include "attn/models/transformer_forward.h"

namespace attn::models {
namespace {

/// One encoding's pass through the model's layers: embedded once, then run from
/// any layer on a given residual stream, with hooks.
class Pass {
 public:
  Pass(const ModelConfig& c, const ModelWeights& w, const Encoding& enc, const std::vector<uint8_t>& keep,
       const RunOptions& opt, const std::vector<std::vector<HeadEdit>>& edits)
      : f_(c, w, enc, opt, keep, edits, noDisplay_), graph_(familyGraph(c)) {
    graph_.embed(f_, embedded_);
  }

  const Mat& embedded() const { return embedded_; }

  /// Layers start.. on h; `inputs` (when given) collects the residual stream entering each.
  /// Returns the final hidden state's last row.
  Vec runFrom(int start, Mat h, ActivationHooks* hooks, std::vector<Mat>* inputs = nullptr) {
    f_.hooks = hooks;
    AttentionResult unused;
    for (int l = start; l < f_.config.layers; ++l) {
      if (inputs) inputs->push_back(h);
      graph_.layer(f_, l, h, false, unused);
    }
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

/// Fills `out` [rows, cols] with the recovered fraction of each patched run.
template <typename Run>
Status sweep(Mat& out, int rows, int cols, double corrupt, double clean, Run&& run, int& done, int total,
             const ProgressFn& progress, const std::string& src, std::string_view stage) {
  out.resize(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      if (progress && !progress(static_cast<double>(done) / total, stage)) return Error{src + ": cancelled"};
      out(r, c) = static_cast<float>((run(r, c) - corrupt) / (clean - corrupt));
      ++done;
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
  std::vector<Mat> cleanInputs, cleanHeads, cleanMlp, corruptInputs;
  ActivationHooks record;
  record.recordHeads = &cleanHeads;
  record.recordMlp = &cleanMlp;
  PatchingResult out;
  out.cleanDiff = diff(cleanPass.runFrom(0, cleanPass.embedded(), &record, &cleanInputs));
  out.corruptDiff = diff(corruptPass.runFrom(0, corruptPass.embedded(), nullptr, &corruptInputs));
  if (!(std::abs(out.cleanDiff - out.corruptDiff) > 1e-6))
    return Error{
        fmt::format("{}: the clean and the corrupt text give the same logit difference ({:.6g}): "
                    "there is nothing for patching to recover; choose texts or tokens that differ",
                    src, out.cleanDiff)};

  const int total = (options.residual ? L * n : 0) + (options.heads ? L * H : 0) + (options.mlp ? L * n : 0);
  int done = 0;
  auto residual = [&](int l, int p) {
    Mat h = corruptInputs[static_cast<size_t>(l)];
    h.row(p) = cleanInputs[static_cast<size_t>(l)].row(p);
    return diff(corruptPass.runFrom(l, std::move(h), nullptr));
  };
  auto patchedSite = [&](ActivationHooks::Site site, const std::vector<Mat>& source) {
    return [&, site](int l, int index) {
      ActivationHooks hk;
      hk.site = site;
      hk.layer = l;
      hk.index = index;
      hk.source = &source[static_cast<size_t>(l)];
      return diff(corruptPass.runFrom(l, corruptInputs[static_cast<size_t>(l)], &hk));
    };
  };
  const double lo = out.corruptDiff, hi = out.cleanDiff;
  if (options.residual)
    if (auto st = sweep(out.residual, L, n, lo, hi, residual, done, total, progress, src,
                        "patching the residual stream");
        !st)
      return st.error();
  if (options.heads)
    if (auto st = sweep(out.heads, L, H, lo, hi, patchedSite(ActivationHooks::Site::HeadOutput, cleanHeads),
                        done, total, progress, src, "patching heads");
        !st)
      return st.error();
  if (options.mlp)
    if (auto st = sweep(out.mlp, L, n, lo, hi, patchedSite(ActivationHooks::Site::MlpOutput, cleanMlp), done,
                        total, progress, src, "patching MLPs");
        !st)
      return st.error();
  if (progress && !progress(1.0, "done")) return Error{src + ": cancelled"};
  return out;
}

}  // namespace attn::models
