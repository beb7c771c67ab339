#pragma once
// tokenizer.json "pre_tokenizer": BertPreTokenizer, ByteLevel, Split (the
// model's own regex: GPT-2, Llama 3, Qwen2), Metaspace, Whitespace,
// WhitespaceSplit, Punctuation, Digits, CharDelimiterSplit and Sequence, with the
// library's split behaviours (Isolated, Removed, MergedWithPrevious,
// MergedWithNext, Contiguous).
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "attn/status.h"
#include "attn/tokenizers/hf/hf_normalized_string.h"

namespace attn::models {

/// One piece of text on its way to the model. `atStart`: it begins at offset 0 of
/// the original text (Metaspace's prepend_scheme "first" asks).
struct PreToken {
  NormalizedString text;
  bool atStart = false;
};

/// Splits (and may rewrite) one piece; empty pieces are dropped by the caller.
using PreTokenizer = std::function<std::vector<PreToken>(const PreToken&)>;

/// A null JSON value gives an empty PreTokenizer. Errors name `source` and the fault.
Result<PreTokenizer> parsePreTokenizer(const nlohmann::json& j, const std::string& source, int depth = 0);

/// BERT's pre-tokenizer: split on whitespace (removed) and punctuation (isolated).
PreTokenizer bertPreTokenizer();
/// GPT-2's ByteLevel pre-tokenizer.
PreTokenizer byteLevelPreTokenizer(bool addPrefixSpace, bool useRegex);

/// GPT-2's bytes_to_unicode(): byte -> printable code point, as UTF-8.
const std::vector<std::string>& byteLevelAlphabet();

/// GPT-2's pre-tokenizer split of `text` (valid UTF-8) before byte mapping: every
/// match of its pattern and every gap between matches, in order.
std::vector<std::string> gpt2Split(const std::string& text);

}  // namespace attn::models
