#pragma once
// Ollama's model store: `ollama:NAME[:TAG]` names the manifest
// $OLLAMA_MODELS (else ~/.ollama/models)/manifests/registry.ollama.ai/library/NAME/TAG
// (NAME "user/model" for a user's namespace; TAG "latest" when omitted), whose layer of
// mediaType application/vnd.ollama.image.model is the GGUF file, stored as
// blobs/sha256-<hex digest>.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attn/status.h"

namespace attn::models::gguf {

inline constexpr std::string_view kOllamaPrefix = "ollama:";

/// The model blob's path for `spec` ("ollama:llama3.2:1b"); errors name the manifest and the fault.
Result<std::string> resolveOllamaModel(std::string_view spec);

/// $OLLAMA_MODELS, else ~/.ollama/models.
std::string ollamaStoreRoot();

/// One manifest of the store: a model that opens, or a broken one with the reason.
struct OllamaModelEntry {
  std::string spec;   // "ollama:llama3.2:1b" (NAME "user/model" outside the library namespace)
  std::string name;   // "llama3.2", "user/model"
  std::string tag;    // "1b", "latest"
  std::string blob;   // the model's GGUF blob ("" when broken)
  int64_t bytes = 0;  // the blob's size
  std::string error;  // what resolveOllamaModel said of a broken manifest ("" when it resolves)
};

struct OllamaStoreListing {
  std::string root;                      // the store looked in
  std::string manifests;                 // root/manifests/registry.ollama.ai
  bool found = false;                    // `manifests` is a folder
  std::vector<OllamaModelEntry> models;  // by name, then tag
  bool truncated = false;                // more manifests than the limit
};

/// Every manifest under manifests/registry.ollama.ai/NAMESPACE/MODEL/TAG, each resolved as
/// resolveOllamaModel does. At most `maxModels` manifests are read (a store is untrusted: its
/// folders may hold anything); names that are not Ollama names are skipped, never followed.
OllamaStoreListing listOllamaModels(size_t maxModels = 500);

}  // namespace attn::models::gguf
