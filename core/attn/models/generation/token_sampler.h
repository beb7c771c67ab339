#pragma once
// Sampling the next token as transformers' generate does with do_sample: the logits
// processors' scores, then the warpers in its order (TemperatureLogitsWarper,
// TopKLogitsWarper, TopPLogitsWarper: Holtzman et al. 2020, "The Curious Case of Neural
// Text Degeneration", section 3.1), softmax, one draw. The draw is ours, not torch's: a
// std::mt19937_64 seeded with the seed (its output sequence is fixed by the C++ standard)
// turned into a uniform in [0, 1) by taking its top 53 bits, and the token whose cumulative
// probability (in id order, in double) first exceeds it. The same seed gives the same
// tokens on every machine and engine copy for the same scores.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "attn/status.h"

namespace attn::models {

struct SamplingSettings {
  bool enabled = false;      // do_sample
  int topK = 50;             // 0: off (GenerationConfig's default is 50)
  double topP = 1.0;         // 1: off
  double temperature = 1.0;  // > 0
  uint64_t seed = 0;
};

/// The faults of settings sampling cannot use, one line naming the option: top-k < 0,
/// top-p outside (0, 1], a temperature <= 0 or not finite.
Status checkSamplingSettings(const SamplingSettings& s);

/// The documented generator: mt19937_64(seed), uniform() = (next >> 11) * 2^-53.
class SamplingRng {
 public:
  explicit SamplingRng(uint64_t seed) : engine_(seed) {}
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

 private:
  std::mt19937_64 engine_;
};

/// The warpers on one row of scores [vocab], in place (after the logits processors; -inf
/// removes a token): divided by the temperature (in float, as transformers divides them),
/// every token below the top-k-th score removed (ties with it kept; k at least `minKeep`),
/// then every token whose more probable tokens already hold top-p of the softmax's mass
/// (in double) removed, the `minKeep` most probable always kept. transformers keeps 1 when
/// it samples one sequence and the number of EOS ids + 1 in beam sampling, so that a beam
/// can always go on.
void warpScores(float* scores, int vocab, const SamplingSettings& s, int minKeep = 1);

/// The distribution sampling draws from: warpScores with one token kept, then the softmax of
/// what is left, in double. Removed tokens have probability 0.
std::vector<double> samplingDistribution(const float* scores, int vocab, const SamplingSettings& s);

/// Softmax in double of `scores` (-inf: probability 0); all zero when nothing is finite.
std::vector<double> softmaxDouble(const float* scores, size_t n);

/// The token at `u` in [0, 1) of `probs`: the first id whose cumulative probability exceeds
/// u * (the sum) (the last token with probability > 0 when rounding leaves u past the end).
int drawToken(const std::vector<double>& probs, double u);

/// samplingDistribution then one draw from `rng`.
int sampleNextToken(const float* scores, int vocab, const SamplingSettings& s, SamplingRng& rng);

/// "sampling (top_k 50, top_p 0.9, temperature 0.7, seed 1)".
std::string describeSampling(const SamplingSettings& s);

}  // namespace attn::models
