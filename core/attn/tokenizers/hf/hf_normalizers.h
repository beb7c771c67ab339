#pragma once
// tokenizer.json "normalizer": BertNormalizer, NFC/NFD/NFKC/NFKD, Lowercase,
// StripAccents, Strip, Prepend, Replace and Sequence, as the `tokenizers`
// library applies them to each piece of text between added tokens.
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "attn/status.h"
#include "attn/tokenizers/hf/hf_normalized_string.h"

namespace attn::models {

/// Rewrites a piece of text in place, keeping each byte's source in the original
/// text (hf_normalized_string.h); an empty function is "none".
using Normalizer = std::function<void(NormalizedString&)>;

/// A null JSON value gives an empty Normalizer. Errors name `source` and the fault.
Result<Normalizer> parseNormalizer(const nlohmann::json& j, const std::string& source, int depth = 0);

/// BERT's normalizer (Devlin et al. 2019; the library's BertNormalizer): clean text,
/// space around CJK ideographs, NFD + drop Mn marks, per-character lowercase.
Normalizer bertNormalizer(bool cleanText, bool handleChineseChars, bool stripAccents, bool lowercase);

}  // namespace attn::models
