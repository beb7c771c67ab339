#include "attn/models/lens/lens_readout.h"

#include <fmt/format.h>

#include <algorithm>

#include "attn/models/mlm_head.h"
#include "attn/models/transformer_layers.h"

namespace attn::models {
namespace {

/// Logits of a block of residual-stream rows: the final norm (unless the rows are
/// after it already) and the lm_head, or the masked-LM head.
void lensLogits(const ModelConfig& c, const ModelWeights& w, const ConstMatRef& h, bool afterFinalNorm,
                Mat& logits) {
  if (c.family == Family::Bert) {
    maskedLmLogits(h, w.mlmHead, c.normEps, logits);
    return;
  }
  LinearWeight head;
  head.w = w.lmHead;
  if (afterFinalNorm) {
    linear(h, head, logits);
    return;
  }
  Mat normed;
  if (c.family == Family::Gpt2)
    layerNorm(h, w.finalNorm, c.normEps, normed);
  else
    rmsNorm(h, w.finalNorm, c.normEps, normed);
  linear(normed, head, logits);
}

// The logits of one block stay below this many floats (64 MB): a 150k vocabulary reads
// out ~110 rows at a time.
constexpr int64_t kLogitBudget = int64_t{1} << 24;

}  // namespace

Result<LogitLens> computeLogitLens(const ModelConfig& c, const ModelWeights& w, const ModelRun& run, int k,
                                   const std::string& src, const ProgressFn& progress) {
  const int L = c.layers;
  if (run.hiddenStates.size() != static_cast<size_t>(L) + 1)
    return Error{fmt::format("{}: the logit lens needs the {} hidden states of the run (it has {})", src,
                             L + 1, run.hiddenStates.size())};
  if (c.family == Family::Bert && !w.mlmHead.present())
    return Error{src +
                 ": the logit lens of an encoder reads out through its masked-LM head (cls.predictions or "
                 "lm_head), and this checkpoint has none"};
  const int n = static_cast<int>(run.hiddenStates.front().rows());
  const int vocab = c.vocabSize;
  LogitLens lens;
  lens.rows = L + 1;
  lens.positions = n;
  lens.k = std::max(1, std::min(k, vocab));
  const size_t cells = static_cast<size_t>(lens.rows) * static_cast<size_t>(n);
  lens.topIds.assign(cells * static_cast<size_t>(lens.k), 0);
  lens.topProbs.assign(cells * static_cast<size_t>(lens.k), 0.0f);
  lens.finalRank.assign(cells, 0);
  lens.finalProb.assign(cells, 0.0f);
  lens.finalIds.assign(static_cast<size_t>(n), -1);
  const int block =
      static_cast<int>(std::clamp<int64_t>(kLogitBudget / std::max(vocab, 1), 1, std::max(n, 1)));
  Mat logits;
  // The last row first: its top-1 is the final prediction the other rows are ranked by.
  for (int step = 0; step <= L; ++step) {
    const int row = step == 0 ? L : step - 1;
    if (progress && !progress(static_cast<double>(step) / (L + 1), "logit lens"))
      return Error{src + ": cancelled"};
    const Mat& h = run.hiddenStates[static_cast<size_t>(row)];
    for (int start = 0; start < n; start += block) {
      const int count = std::min(block, n - start);
      lensLogits(c, w, h.middleRows(start, count), c.family != Family::Bert && row == L, logits);
#pragma omp parallel for schedule(static)
      for (int r = 0; r < count; ++r) {
        const int i = start + r;
        const LensCell cell = lensCell(&logits(r, 0), vocab, lens.k, lens.finalIds[static_cast<size_t>(i)]);
        const size_t at = lens.cell(row, i);
        std::copy(cell.ids.begin(), cell.ids.end(),
                  lens.topIds.begin() + static_cast<ptrdiff_t>(at * lens.k));
        std::copy(cell.probs.begin(), cell.probs.end(),
                  lens.topProbs.begin() + static_cast<ptrdiff_t>(at * lens.k));
        lens.finalRank[at] = cell.finalRank;
        lens.finalProb[at] = cell.finalProb;
        if (row == L) lens.finalIds[static_cast<size_t>(i)] = cell.finalId;
      }
    }
  }
  if (progress && !progress(1.0, "logit lens")) return Error{src + ": cancelled"};
  return lens;
}

}  // namespace attn::models
