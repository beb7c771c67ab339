#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "attn/backend.h"
#include "attn/cpu/efficient_exec.h"
#include "attn/metrics.h"
#include "attn/scores.h"

namespace attn {
namespace {

class CpuBackend final : public Backend {
 public:
  std::string_view name() const override { return "cpu"; }

  Status computeHeads(const AttentionSpec& spec, ExecPath path,
                      std::vector<HeadResult>& heads) const override {
    if (path == ExecPath::Naive) return Backend::computeHeads(spec, path, heads);
    return computeHeadsEfficient(spec, path, heads,
                                 [this](const AttentionSpec& s, HeadResult& h) { return computeHead(s, h); });
  }

  Status computeHead(const AttentionSpec& spec, HeadResult& h) const override {
    const auto nq = h.q.rows(), nk = h.k.rows();
    h.rawLogits = rawScores(spec.mechanism, h.q, h.k, h.scoreParams);
    h.scaledLogits = h.rawLogits * logitScale(spec.mechanism, h.q.cols(), spec.temperature);
    // Finite inputs can still overflow float32 (huge embeddings); say so
    // rather than let a NaN reach the screen.
    for (Eigen::Index i = 0; i < nq; ++i)
      for (Eigen::Index j = 0; j < nk; ++j)
        if (!std::isfinite(h.scaledLogits(i, j)))
          return Error{fmt::format("attention logit [{}, {}] overflowed float32 ({}): the inputs are too large",
                                   i, j, h.scaledLogits(i, j))};

    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    h.maskedLogits = h.scaledLogits;
    if (h.logitBias.size() > 0) h.maskedLogits += h.logitBias;
    h.weights.setZero(nq, nk);
    h.fullyMaskedRows.clear();
    for (Eigen::Index i = 0; i < nq; ++i) {
      float rowMax = kNegInf;
      for (Eigen::Index j = 0; j < nk; ++j) {
        if (!spec.mask.allowed(static_cast<int>(i), static_cast<int>(j))) {
          h.maskedLogits(i, j) = kNegInf;
        } else {
          rowMax = std::max(rowMax, h.maskedLogits(i, j));
        }
      }
      if (rowMax == kNegInf) {  // every key masked: all-zero weights, flagged
        h.fullyMaskedRows.push_back(static_cast<int>(i));
        continue;
      }
      double sum = 0.0;
      for (Eigen::Index j = 0; j < nk; ++j) {
        // Masked weights are set to exactly 0 rather than exp(-inf), which a
        // vectorized exp may return as ~3e-39.
        if (h.maskedLogits(i, j) == kNegInf) continue;
        const float e = std::exp(h.maskedLogits(i, j) - rowMax);
        h.weights(i, j) = e;
        sum += e;
      }
      h.weights.row(i) /= static_cast<float>(sum);
    }
    h.output.noalias() = h.weights * h.v;
    h.entropy = rowEntropy(h.weights);
    return okStatus();
  }
};

}  // namespace

std::unique_ptr<Backend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

std::unique_ptr<Backend> selectBackend(BackendKind kind, std::vector<std::string>& warnings) {
  if (kind == BackendKind::Cuda)
    warnings.emplace_back("backend 'cuda' is not available in this build; using cpu");
  return makeCpuBackend();
}

}  // namespace attn
