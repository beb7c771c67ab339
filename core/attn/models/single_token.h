#pragma once
// One token of a model's vocabulary, as a user names it: its text as the tokenizer
// splits it ("␣Mary" written " Mary") or its id as "#ID". What activation patching's
// target and foil and the gradients' target are (one logit each).
#include <string>

#include "attn/models/model.h"
#include "attn/status.h"

namespace attn::models {

/// The id `text` names (defined beside Model::encode in model.cpp). Errors, starting with `what` (an option
/// or field name): an id outside the vocabulary; a text that is not exactly one token, saying how many it
/// came to.
Result<int> singleTokenId(const Model& model, const std::string& text, const std::string& what);

}  // namespace attn::models
