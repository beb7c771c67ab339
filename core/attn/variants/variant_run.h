#pragma once
// One entry point for the front ends: the engine input and spec, plus which
// variant and its parameters, give every number the variant's view, figure,
// CLI summary and result file need. The GUI and the CLI call the same function.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/engine.h"
#include "attn/variants/adaptive_span.h"
#include "attn/variants/dynamic_conv.h"
#include "attn/variants/multi_hop.h"
#include "attn/variants/precision.h"
#include "attn/variants/segment_memory.h"

namespace attn::variants {

enum class VariantKind { SegmentMemory, AdaptiveSpan, DynamicConv, MultiHop, Precision };

std::string_view variantName(VariantKind k);  // xl, span, dynconv, hops, precision
std::optional<VariantKind> parseVariant(std::string_view name);
std::vector<std::string_view> allVariants();

struct VariantOptions {
  VariantKind kind = VariantKind::SegmentMemory;
  // xl
  int segment = 8;
  int memory = 8;
  int layers = 1;  // for the reach after stacking layers
  // span: z per head (empty: 2^h, i.e. 1, 2, 4, ...), ramp R
  std::vector<double> spanZ;
  double spanRamp = 2.0;
  // dynconv: kernel width k (causal when the mask has a causal term)
  int kernel = 3;
  // hops
  int hops = 3;
  HopUpdate hopUpdate = HopUpdate::Add;
  // precision
  PrecisionOptions precision;
};

/// One matrix to draw, with its labels. memoryColumns > 0 draws a separator
/// after that many columns and gives those labels the memory colour.
struct VariantMap {
  std::string title;
  Mat values;
  std::vector<std::string> rowLabels, colLabels;
  int memoryColumns = 0;
  bool isError = false;   // an error map (|A_low - A_fp32|): its own colour range
};

struct VariantRun {
  VariantOptions options;
  std::vector<std::string> tokens;
  std::optional<AttentionResult> base;  // the engine's result the variant starts from (span, hops, precision)
  std::optional<XlResult> xl;
  std::vector<int> xlReach;             // earliest token reaching each token after options.layers layers
  std::vector<SpanHead> span;
  std::optional<DynamicConvResult> dynconv;
  std::vector<MultiHopHead> hops;
  std::optional<PrecisionResult> precision;
  int numHeads() const;
};

/// Runs the engine (naive path: every intermediate kept) where the variant
/// starts from it, then the variant. Errors name the option or input at fault.
Result<VariantRun> runVariant(const AttentionInput& input, const AttentionSpec& spec, const VariantOptions& options);

/// The maps the variant's view draws for `head`: xl the chosen segment (memory
/// columns first; -1 = the last) and the whole sequence; span the original and
/// the spanned map; dynconv the banded map; hops one map per hop; precision the
/// fp32 map, the low-precision map and the error map.
std::vector<VariantMap> variantMaps(const VariantRun& run, int head, int segment = -1);

/// A few lines of plain English for the CLI: what ran and its summary numbers.
std::vector<std::string> variantSummary(const VariantRun& run);

}  // namespace attn::variants
