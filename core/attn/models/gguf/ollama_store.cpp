#include "attn/models/gguf/ollama_store.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "attn/io/json_document.h"
#include "attn/io/quote.h"
#include "attn/io/regular_file.h"

namespace attn::models::gguf {
namespace {

namespace fs = std::filesystem;

/// A name or tag component: letters, digits, '.', '_', '-' (no path of its own).
bool ollamaComponent(std::string_view s) {
  if (s.empty() || s == "." || s == ".." || s.size() > 200) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

fs::path ollamaRoot() {
  if (const char* env = std::getenv("OLLAMA_MODELS"); env && *env) return env;
  const char* home = std::getenv("HOME");
  return fs::path(home && *home ? home : ".") / ".ollama" / "models";
}

}  // namespace

Result<std::string> resolveOllamaModel(std::string_view spec) {
  std::string_view rest = spec.substr(kOllamaPrefix.size());
  std::string_view name = rest, tag = "latest";
  if (const size_t colon = rest.rfind(':'); colon != std::string_view::npos)
    name = rest.substr(0, colon), tag = rest.substr(colon + 1);
  std::string_view space = "library", model = name;
  if (const size_t slash = name.find('/'); slash != std::string_view::npos)
    space = name.substr(0, slash), model = name.substr(slash + 1);
  if (!ollamaComponent(space) || !ollamaComponent(model) || !ollamaComponent(tag))
    return Error{
        fmt::format("{}: not an Ollama model name (ollama:NAME[:TAG], NAME of letters, digits, '.', "
                    "'_', '-', optionally user/NAME)",
                    quoteForMessage(spec))};
  const fs::path root = ollamaRoot();
  const std::string manifest =
      (root / "manifests" / "registry.ollama.ai" / std::string(space) / std::string(model) / std::string(tag))
          .string();
  std::error_code ec;
  if (!fs::exists(manifest, ec))
    return Error{fmt::format("{}: no such Ollama model ({} not found; $OLLAMA_MODELS sets the store)",
                             quoteForMessage(spec), manifest)};
  auto doc = readJsonFile(manifest, int64_t{1} << 20);
  if (!doc) return doc.error();
  const nlohmann::json& j = *doc;
  if (!j.is_object() || !j.contains("layers") || !j["layers"].is_array())
    return Error{manifest + ": expected an object with a 'layers' array (an Ollama manifest)"};
  for (const auto& layer : j["layers"]) {
    if (!layer.is_object() || !layer.contains("mediaType") ||
        layer["mediaType"] != "application/vnd.ollama.image.model")
      continue;
    const auto& digest = layer.contains("digest") ? layer["digest"] : nlohmann::json();
    const std::string d = digest.is_string() ? digest.get<std::string>() : std::string();
    const bool hex = d.size() == 71 && d.starts_with("sha256:") &&
                     d.find_first_not_of("0123456789abcdef", 7) == std::string::npos;
    if (!hex)
      return Error{fmt::format("{}: the model layer's digest {} is not sha256:<64 hex digits>", manifest,
                               jsonExcerpt(digest))};
    const fs::path blob = root / "blobs" / ("sha256-" + d.substr(7));
    if (!fs::exists(blob, ec))
      return Error{fmt::format("{}: the model blob {} is missing", manifest, blob.string())};
    return blob.string();
  }
  return Error{manifest +
               ": no layer of mediaType application/vnd.ollama.image.model (the model's GGUF file)"};
}

}  // namespace attn::models::gguf
