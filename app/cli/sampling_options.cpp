#include "sampling_options.h"

namespace attn::cli {

void addSamplingOptions(CLI::App* cmd, SamplingCliOptions& s) {
  cmd->add_flag("--do-sample", s.doSample,
                "Sample the tokens (top-k / top-p / temperature) instead of greedy; with --beam K > 1, "
                "beam sampling as transformers' generate");
  cmd->add_option("--top-k", s.topK,
                  "Sampling: only the k most probable tokens (0: off; default: the model's, 50)");
  cmd->add_option(
      "--top-p", s.topP,
      "Sampling: only the most probable tokens holding this much probability, (0, 1] (default: 1)");
  cmd->add_option("--temperature", s.temperature, "Sampling: logits divided by this, > 0 (default: 1)");
  cmd->add_option("--seed", s.seed,
                  "Sampling: the seed of the generator (mt19937_64; the same seed gives the same text)")
      ->capture_default_str();
}

Status checkSamplingRanges(const SamplingCliOptions& s) {
  models::SamplingSettings ranges;
  ranges.topK = s.topK.value_or(0), ranges.topP = s.topP.value_or(1.0);
  ranges.temperature = s.temperature.value_or(1.0);
  return models::checkSamplingSettings(ranges);
}

}  // namespace attn::cli
