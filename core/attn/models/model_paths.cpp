#include "attn/models/model_paths.h"

#include <fmt/format.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <memory>

namespace attn::models {
namespace {

namespace fs = std::filesystem;

/// realpath(3), or "" when the path does not resolve.
std::string realPathOf(const std::string& path) {
  std::unique_ptr<char, decltype(&std::free)> r(::realpath(path.c_str(), nullptr), &std::free);
  return r ? std::string(r.get()) : std::string();
}

bool pathWithin(const std::string& path, const std::string& root) {
  if (root.empty()) return false;
  if (root == "/") return true;
  return path == root ||
         (path.size() > root.size() && path.compare(0, root.size(), root) == 0 && path[root.size()] == '/');
}

/// models--org--name above `snapshot` when it is snapshots/<hash> in the cache, else "".
std::string hfCacheRootOf(const fs::path& snapshot) {
  const fs::path snaps = snapshot.parent_path(), cache = snaps.parent_path();
  if (snaps.filename() == "snapshots" && cache.filename().string().starts_with("models--"))
    return cache.string();
  return {};
}

}  // namespace

Status checkModelFilePath(const std::string& dir, const std::string& file) {
  const std::string target = realPathOf(file);
  if (target.empty()) return okStatus();  // missing or a dangling link: open() reports it
  const std::string root = realPathOf(dir);
  if (pathWithin(target, root)) return okStatus();
  // The cache's own layout, whether the snapshot was named directly or through a link.
  fs::path lexical = fs::path(dir).lexically_normal();
  if (!lexical.has_filename()) lexical = lexical.parent_path();
  for (const std::string& cache : {hfCacheRootOf(fs::path(root)), hfCacheRootOf(lexical)})
    if (!cache.empty() && pathWithin(target, realPathOf(cache))) return okStatus();
  return Error{
      fmt::format("{}: leads to {}, outside the model folder {} (files of a model folder must stay inside "
                  "it, or inside its Hugging Face cache folder models--org--name)",
                  file, target, root.empty() ? dir : root)};
}

}  // namespace attn::models
