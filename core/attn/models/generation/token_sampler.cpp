#include "attn/models/generation/token_sampler.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
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

void warpScores(float* scores, int vocab, const SamplingSettings& s, int minKeep) {
  const size_t V = static_cast<size_t>(std::max(vocab, 0));
  if (V == 0) return;
  const float minusInf = -std::numeric_limits<float>::infinity();
  // TemperatureLogitsWarper: scores / T, in the scores' float as transformers divides them.
  for (size_t t = 0; t < V; ++t) scores[t] = scores[t] / static_cast<float>(s.temperature);
  const size_t keep = static_cast<size_t>(std::max(minKeep, 1));
  const size_t k = s.topK > 0 ? std::max(static_cast<size_t>(s.topK), keep) : V;
  if (k < V) {  // TopKLogitsWarper: scores below the k-th best removed (its value: a selection)
    std::vector<float> sorted(scores, scores + V);
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(k - 1), sorted.end(),
                     std::greater<float>());
    const float kth = sorted[k - 1];
    for (size_t t = 0; t < V; ++t)
      if (scores[t] < kth) scores[t] = minusInf;
  }
  if (s.topP >= 1.0) return;
  // TopPLogitsWarper: a token stays while its betters hold less than top-p (the first
  // `keep` always stay).
  // The tokens by score, best first, ties by id (a stable sort); removed ones (-inf) would
  // come last and stay removed, so only the others are sorted.
  std::vector<int> order;
  for (size_t t = 0; t < V; ++t)
    if (scores[t] != minusInf) order.push_back(static_cast<int>(t));
  std::stable_sort(order.begin(), order.end(), [scores](int a, int b) { return scores[a] > scores[b]; });
  const std::vector<double> p = softmaxDouble(scores, V);
  double above = 0;
  for (size_t r = 0; r < order.size(); ++r) {
    const size_t t = static_cast<size_t>(order[r]);
    if (r >= keep && above >= s.topP) scores[t] = minusInf;
    above += p[t];
  }
}

std::vector<double> softmaxDouble(const float* scores, size_t n) {
  std::vector<double> p(n, 0.0);
  double best = -std::numeric_limits<double>::infinity();
  for (size_t t = 0; t < n; ++t) best = std::max(best, static_cast<double>(scores[t]));
  if (!std::isfinite(best)) return p;
  double sum = 0;
  for (size_t t = 0; t < n; ++t)
    sum += p[t] = std::isfinite(scores[t]) ? std::exp(static_cast<double>(scores[t]) - best) : 0.0;
  for (double& v : p) v /= sum;
  return p;
}

std::vector<double> samplingDistribution(const float* scores, int vocab, const SamplingSettings& s) {
  std::vector<float> x(scores, scores + std::max(vocab, 0));
  warpScores(x.data(), vocab, s, 1);
  return softmaxDouble(x.data(), x.size());
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
