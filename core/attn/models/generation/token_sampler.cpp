#include "attn/models/generation/token_sampler.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace attn::models {

Status checkSamplingSettings(const SamplingSettings& s) {
  if (s.topK < 0) return Error{fmt::format("--top-k: {} must be 0 (off) or more", s.topK)};
  if (!(s.topP > 0.0 && s.topP <= 1.0))
    return Error{fmt::format("--top-p: {} is out of range (greater than 0, at most 1)", s.topP)};
  if (!(s.temperature > 0.0) || !std::isfinite(s.temperature))
    return Error{fmt::format("--temperature: {} must be greater than 0", s.temperature)};
  return okStatus();
}

std::vector<double> samplingDistribution(const float* scores, int vocab, const SamplingSettings& s) {
  const size_t V = static_cast<size_t>(std::max(vocab, 0));
  const double minusInf = -std::numeric_limits<double>::infinity();
  std::vector<double> x(V);
  // TemperatureLogitsWarper: scores / T, in the scores' float as transformers divides them.
  for (size_t t = 0; t < V; ++t) x[t] = static_cast<double>(scores[t] / static_cast<float>(s.temperature));
  std::vector<int> order(V);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&x](int a, int b) { return x[static_cast<size_t>(a)] > x[static_cast<size_t>(b)]; });
  if (s.topK > 0 && static_cast<size_t>(s.topK) < V) {  // TopKLogitsWarper: scores < k-th best removed
    const double kth = x[static_cast<size_t>(order[static_cast<size_t>(s.topK) - 1])];
    for (double& v : x)
      if (v < kth) v = minusInf;
  }
  const double best = V > 0 ? x[static_cast<size_t>(order[0])] : 0.0;
  std::vector<double> p(V, 0.0);
  if (V == 0 || !std::isfinite(best)) return p;
  double sum = 0;
  for (size_t t = 0; t < V; ++t) sum += p[t] = std::isfinite(x[t]) ? std::exp(x[t] - best) : 0.0;
  for (double& v : p) v /= sum;
  if (s.topP < 1.0) {  // TopPLogitsWarper: a token stays while its betters hold less than top-p
    double above = 0;
    for (size_t r = 0; r < V; ++r) {
      double& pr = p[static_cast<size_t>(order[r])];
      const double mine = pr;
      if (r > 0 && above >= s.topP) pr = 0.0;
      above += mine;
    }
    const double kept = std::accumulate(p.begin(), p.end(), 0.0);
    for (double& v : p) v /= kept;
  }
  return p;
}

int drawToken(const std::vector<double>& probs, double u) {
  const double total = std::accumulate(probs.begin(), probs.end(), 0.0);
  const double target = u * total;
  double cum = 0;
  int last = 0;
  for (size_t t = 0; t < probs.size(); ++t) {
    if (probs[t] <= 0) continue;
    last = static_cast<int>(t);
    cum += probs[t];
    if (cum > target) return last;
  }
  return last;
}

int sampleNextToken(const float* scores, int vocab, const SamplingSettings& s, SamplingRng& rng) {
  return drawToken(samplingDistribution(scores, vocab, s), rng.uniform());
}

std::string describeSampling(const SamplingSettings& s) {
  return fmt::format("sampling (top_k {}, top_p {}, temperature {}, seed {})", s.topK, s.topP, s.temperature,
                     s.seed);
}

}  // namespace attn::models
