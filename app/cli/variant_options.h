#pragma once
// --variant and its parameters, on run and export: segment memory
// (xl), adaptive span (span), dynamic convolution (dynconv), multi-hop (hops),
// reduced precision (precision). A variant parameter without --variant names
// its variant (--hops 3 alone runs hops).
#include <CLI/CLI.hpp>
#include <string>

#include "attn/variants/variant_run.h"
#include "options.h"

namespace attn::cli {

struct VariantCliOptions {
  std::string variant;
  int segment = 8, memory = 8, layers = 1;
  std::string spanZ;
  double spanRamp = 2.0;
  int kernel = 3;
  int hops = 3;
  std::string hopUpdate = "add";
  std::string precision;
  std::string accumulate = "fp32";
  std::string quantize = "qk";
  int segmentShown = 0;  // export: the segment drawn, 1-based (0: the last)
  CLI::App* cmd = nullptr;

  /// Whether --variant or any variant parameter was given.
  bool active() const;
};

void addVariantOptions(CLI::App& cmd, VariantCliOptions& o);

/// The variant the options name; errors name the option.
Result<variants::VariantOptions> buildVariantOptions(const VariantCliOptions& o);

/// Builds the request and runs the variant (export draws it).
/// `input` (optional) receives the engine input the variant ran on.
Result<variants::VariantRun> runVariantRequest(const CommonOptions& opts, const VariantCliOptions& v,
                                               AttentionInput* input = nullptr);

/// run --variant: runs it and writes the result .npz; prints the summary.
int runVariantCommand(const CommonOptions& opts, const VariantCliOptions& v, const std::string& out);

}  // namespace attn::cli
