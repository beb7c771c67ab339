#include "attn_ui/patching/token_count.h"

#include <optional>

#include "attn/models/single_token.h"

namespace attn::ui {

int textTokenCount(const attn::models::Model& model, const std::string& text) {
  auto enc = model.encode(text, std::nullopt, "text");
  return enc ? enc->size() : -1;
}

int answerTokenCount(const attn::models::Model& model, const std::string& text) {
  if (!text.empty() && text[0] == '#') return attn::models::singleTokenId(model, text, "id") ? 1 : -1;
  auto enc = model.encode(text, std::nullopt, "answer");
  if (!enc) return -1;
  int n = 0;
  for (int i = 0; i < enc->size(); ++i)
    if (enc->special.empty() || !enc->special[static_cast<size_t>(i)]) ++n;
  return n;
}

}  // namespace attn::ui
