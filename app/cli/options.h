#pragma once
// Options shared by run, metrics and export: the input and the attention spec.
#include <CLI/CLI.hpp>
#include <string>

#include "attn/engine.h"
#include "input_options.h"

namespace attn::cli {

// The input options (--text, --text-file, --input, --tokenizer, ...) live in InputOptions.
struct CommonOptions : InputOptions {
  std::string mechanism = "scaled_dot";
  int heads = 4;
  int dModel = 64;
  int dK = 0;
  int hidden = 0;
  bool bias = false;
  std::string mask = "none";
  std::string pos = "none";
  float temperature = 1.0f;
  uint64_t seed = 42;
  std::string init = "xavier";
  std::string exec = "auto";
  int features = 0;
  int slots = 0;
  std::string memoryBudget;  // e.g. "2G"; empty = default (half of physical memory)
};

void addCommonOptions(CLI::App& cmd, CommonOptions& o);

/// The engine input and spec the options describe; errors name the option.
Result<std::pair<AttentionInput, AttentionSpec>> buildRequest(const CommonOptions& o);

}  // namespace attn::cli
