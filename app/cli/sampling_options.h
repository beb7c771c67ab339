#pragma once
// The sampling options `generate` and `translate` share: --do-sample, --top-k, --top-p,
// --temperature, --seed (transformers' GenerationConfig names), unset where the model's
// generation config decides.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>

#include "attn/models/generation/token_sampler.h"

namespace attn::cli {

struct SamplingCliOptions {
  bool doSample = false;
  std::optional<int> topK;
  std::optional<double> topP, temperature;
  uint64_t seed = 0;
};

/// Adds the five options to cmd.
void addSamplingOptions(CLI::App* cmd, SamplingCliOptions& s);

/// The given values' ranges, before the model is opened: one line naming the option.
Status checkSamplingRanges(const SamplingCliOptions& s);

/// The given values into a model's generate options (their fields of the same names).
template <class GenerateOptions>
void applySamplingOptions(const SamplingCliOptions& s, GenerateOptions& g) {
  g.topK = s.topK, g.topP = s.topP, g.temperature = s.temperature;
  g.seed = s.seed;
}

}  // namespace attn::cli
