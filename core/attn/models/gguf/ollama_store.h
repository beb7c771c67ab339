#pragma once
// Ollama's model store: `ollama:NAME[:TAG]` names the manifest
// $OLLAMA_MODELS (else ~/.ollama/models)/manifests/registry.ollama.ai/library/NAME/TAG
// (NAME "user/model" for a user's namespace; TAG "latest" when omitted), whose layer of
// mediaType application/vnd.ollama.image.model is the GGUF file, stored as
// blobs/sha256-<hex digest>.
#include <string>
#include <string_view>

#include "attn/status.h"

namespace attn::models::gguf {

inline constexpr std::string_view kOllamaPrefix = "ollama:";

/// The model blob's path for `spec` ("ollama:llama3.2:1b"); errors name the manifest and the fault.
Result<std::string> resolveOllamaModel(std::string_view spec);

}  // namespace attn::models::gguf
