#pragma once
// Where run/metrics/export take their sequence from: --text / --text-file
// (with a tokenizer), or --input FILE (tensors in the file contract).
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "attn/engine.h"
#include "attn/input_file.h"

namespace attn::cli {

struct InputOptions {
  std::string text, keyText;
  std::string textFile, keyTextFile;
  std::string inputFile;
  std::string tokenizer = "words";
  std::string vocab, merges, tokenizerJson;
  int layer = 0;  // 1-based layer of precomputed `attn`; 0 = last
  // Set while building the request: the file loaded with --input, kept for
  // commands that view its precomputed weights.
  mutable std::shared_ptr<const LoadedInput> loaded;
};

void addInputOptions(CLI::App& cmd, InputOptions& o);

/// The engine input the options describe; adapts `spec` sizes to loaded
/// tensors. Errors name the option or the file and the fault.
Result<AttentionInput> buildInput(const InputOptions& o, AttentionSpec& spec);

/// Runs the engine, or, for a file holding only precomputed `attn`, returns
/// the chosen layer's weights and entropy as they are.
Result<AttentionResult> runRequest(const InputOptions& o, const AttentionInput& input, const AttentionSpec& spec);

}  // namespace attn::cli
