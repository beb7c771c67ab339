#pragma once
// Token counts shown beside the patching and gradient fields as the user types.
#include <string>

#include "attn/models/model.h"

namespace attn::ui {

/// Tokens the model runs for `text` (special tokens included); -1 when it cannot be encoded.
int textTokenCount(const attn::models::Model& model, const std::string& text);
/// Tokens an answer field comes to: the text's tokens without the special ones, 1 for a valid
/// "#ID"; -1 when it cannot be encoded. One is what a target or a foil must be.
int answerTokenCount(const attn::models::Model& model, const std::string& text);

}  // namespace attn::ui
