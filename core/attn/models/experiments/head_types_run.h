#pragma once
// Every head of a model labelled by what it does: the model runs on a seeded
// repeated random sequence [BOS?] r_0..r_{n-1} r_0..r_{n-1} [suffix?] (Olsson
// et al. 2022, section 2; TransformerLens' detect_head) and each layer's maps
// are scored by attn/analysis/head_types.h over the second copy's rows.
#include <cstdint>
#include <string>
#include <vector>

#include "attn/analysis/head_types.h"
#include "attn/models/model.h"

namespace attn::models {

struct HeadTypeRunOptions {
  uint64_t seed = 0;
  int length = 0;  // n, tokens per copy; 0: min(kDefaultRepeatLength, what the model's context allows)
  HeadTypeThresholds thresholds;
};
inline constexpr int kDefaultRepeatLength = 50;

struct RepeatedSequence {
  Encoding encoding;
  int period = 0;       // n
  RowRange secondCopy;  // its rows in the encoding
};

/// The model's special tokens around 2 copies of n distinct random vocabulary tokens
/// (special-looking ones excluded: "<...>", "[...]", "<|...|>", the template's and the mask
/// token). The prefix is the tokenizer's own (BERT [CLS], Llama <s>); a model that adds none
/// gets "<|endoftext|>" first when its vocabulary has it (GPT-2's BOS, as TransformerLens
/// prepends it). Errors: n < 2, a sequence past the model's context, too small a vocabulary.
Result<RepeatedSequence> repeatedRandomSequence(const Model& model, int length, uint64_t seed);

struct ModelHeadTypes {
  RepeatedSequence sequence;
  uint64_t seed = 0;
  HeadTypeThresholds thresholds;
  std::vector<std::vector<HeadTypeScores>> scores;  // [layers][heads]
  std::vector<std::vector<HeadType>> types;         // [layers][heads]
};

/// Runs the model once on repeatedRandomSequence and scores and labels every head.
Result<ModelHeadTypes> modelHeadTypes(const Model& model, const HeadTypeRunOptions& options = {},
                                      const ProgressFn& progress = {});

}  // namespace attn::models
