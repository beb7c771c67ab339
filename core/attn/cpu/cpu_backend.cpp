#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <vector>

#include "attn/backend.h"
#include "attn/cpu/efficient_exec.h"
#include "attn/cpu/mask_cells.h"
#include "attn/cpu/tiled_attention.h"
#include "attn/metrics.h"
#include "attn/engine/scores.h"

namespace attn {
namespace {

class CpuBackend final : public Backend {
 public:
  std::string_view name() const override { return "cpu"; }

  Status computeHeads(const AttentionSpec& spec, ExecPath path,
                      std::vector<HeadResult>& heads) const override {
    if (path == ExecPath::Naive) {
      // Heads are independent: share them among the cores (the only parallel
      // level; Eigen itself is single-threaded here). The first failing head
      // in head order is reported, whatever the thread timing.
      const int n = static_cast<int>(heads.size());
      std::vector<Status> status(heads.size(), okStatus());
      // An exception (std::bad_alloc) must not leave an OpenMP region: it is
      // caught per head and rethrown here, for the front ends to report.
      std::vector<std::exception_ptr> thrown(heads.size());
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
      for (int i = 0; i < n; ++i) {
        try {
          status[static_cast<size_t>(i)] = computeHead(spec, heads[static_cast<size_t>(i)]);
        } catch (...) {
          thrown[static_cast<size_t>(i)] = std::current_exception();
        }
      }
      for (auto& e : thrown)
        if (e) std::rethrow_exception(e);
      for (auto& st : status)
        if (!st) return st;
      return okStatus();
    }
    return computeHeadsEfficient(spec, path, heads,
                                 [this](const AttentionSpec& s, HeadResult& h) { return computeHead(s, h); });
  }

  Status computeHead(const AttentionSpec& spec, HeadResult& h) const override {
    const auto nq = h.q.rows(), nk = h.k.rows();
    h.rawLogits = rawScores(spec.mechanism, h.q, h.k, h.scoreParams);
    h.scaledLogits = h.rawLogits * logitScale(spec.mechanism, h.q.cols(), spec.temperature);
    // Finite inputs can still overflow float32 (huge embeddings); say so
    // rather than let a NaN reach the screen.
    if (!h.scaledLogits.allFinite())
      for (Eigen::Index i = 0; i < nq; ++i)
        for (Eigen::Index j = 0; j < nk; ++j)
          if (!std::isfinite(h.scaledLogits(i, j)))
            return Error{fmt::format("attention logit [{}, {}] overflowed float32 ({}): the inputs are too large",
                                     i, j, h.scaledLogits(i, j))};

    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    h.maskedLogits = h.scaledLogits;
    if (h.logitBias.size() > 0) h.maskedLogits += h.logitBias;
    if (!spec.mask.isNone()) maskCells(spec.mask, h.maskedLogits, kNegInf);
    // Weights, row max and entropy in one vectorized pass per row (the tiled
    // kernels' softmax): masked weights exactly 0, fully masked rows flagged.
    h.weights = h.maskedLogits;
    RowStats st;
    softmaxRowsInPlace(h.weights, st);
    h.fullyMaskedRows = std::move(st.fullyMaskedRows);
    h.entropy = std::move(st.entropy);
    h.output.noalias() = h.weights * h.v;
    return okStatus();
  }
};

}  // namespace

void maskCells(const Mask& mask, Mat& m, float value) {
  constexpr int kSegment = 32;
  const int nq = static_cast<int>(m.rows()), nk = static_cast<int>(m.cols());
  for (int i = 0; i < nq; ++i)
    for (int j0 = 0; j0 < nk; j0 += kSegment) {
      const int j1 = std::min(nk, j0 + kSegment);
      switch (mask.blockState(i, i + 1, j0, j1)) {
        case BlockState::AllAllowed: break;
        case BlockState::AllMasked: m.row(i).segment(j0, j1 - j0).setConstant(value); break;
        case BlockState::Mixed:
          for (int j = j0; j < j1; ++j)
            if (!mask.allowed(i, j)) m(i, j) = value;
          break;
      }
    }
}

std::unique_ptr<Backend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

}  // namespace attn
