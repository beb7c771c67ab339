#include "attn/models/gguf/ollama_store.h"

#include <fmt/format.h>

#include <algorithm>
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

/// The sorted names in `dir` that are Ollama name components; at most `limit` entries are looked at.
std::vector<std::string> componentsIn(const fs::path& dir, size_t limit, bool& truncated) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  for (size_t seen = 0; !ec && it != end; it.increment(ec)) {
    if (++seen > limit) {
      truncated = true;
      break;
    }
    std::string name = it->path().filename().string();
    if (ollamaComponent(name)) out.push_back(std::move(name));
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool isFolder(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

}  // namespace

std::string ollamaStoreRoot() { return ollamaRoot().string(); }

OllamaStoreListing listOllamaModels(size_t maxModels) {
  OllamaStoreListing out;
  const fs::path registry = ollamaRoot() / "manifests" / "registry.ollama.ai";
  out.root = ollamaRoot().string();
  out.manifests = registry.string();
  out.found = isFolder(registry);
  if (!out.found) return out;
  // Directory listings are bounded too, so that a folder of a million entries costs no more than the limit.
  const size_t scan = std::max<size_t>(maxModels, 1) * 4;
  for (const std::string& space : componentsIn(registry, scan, out.truncated)) {
    if (!isFolder(registry / space)) continue;
    for (const std::string& model : componentsIn(registry / space, scan, out.truncated)) {
      if (!isFolder(registry / space / model)) continue;
      for (const std::string& tag : componentsIn(registry / space / model, scan, out.truncated)) {
        if (out.models.size() >= maxModels) {
          out.truncated = true;
          return out;
        }
        OllamaModelEntry e;
        e.name = space == "library" ? model : space + "/" + model;
        e.tag = tag;
        e.spec = std::string(kOllamaPrefix) + e.name + ":" + tag;
        if (auto blob = resolveOllamaModel(e.spec)) {
          e.blob = *blob;
          std::error_code ec;
          const auto size = fs::file_size(e.blob, ec);
          e.bytes = ec ? 0 : static_cast<int64_t>(size);
        } else {
          e.error = blob.error().message;
        }
        out.models.push_back(std::move(e));
      }
    }
  }
  return out;
}

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
