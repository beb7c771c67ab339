#pragma once
// The small models the project trains itself (scripts/models/) and ships in
// resources/models/, so learned attention is one name away without a download:
// `--model austen-gpt2` on the command line, File > Open Bundled Model in the
// window. A name is looked up as a folder first (a folder of that name in the
// working directory wins), then in the bundled folders, in this order:
//   $ATTNSCOPE_MODELS_DIR                   (tests, or a user's own copy)
//   <program>/../share/attnscope/models     (installed: /usr/share/attnscope/models;
//                                            the build tree links it to resources/models)
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attn::models {

struct BundledModel {
  std::string name;                   // the folder's name, e.g. "austen-gpt2"
  std::string language;               // "en", "zh" or "" (a made-up vocabulary)
  std::vector<std::string> examples;  // sentences chosen to show its heads; the first opens it
  int layer = 0;                      // the head the window opens it on (0-based): one whose
  int head = 0;                       // pattern its model card describes
};

/// Every model the project ships, the default first.
const std::vector<BundledModel>& bundledModels();
/// The entry named `name`, or null.
const BundledModel* findBundledModel(std::string_view name);
/// The model the window and scripts/run.sh open when nothing else is asked for.
const BundledModel& defaultBundledModel();

/// The folders searched for bundled models, in order (existing or not).
std::vector<std::string> bundledModelDirs();
/// bundledModelDirs() joined by ", " for a message ("no folder" when empty).
std::string bundledModelDirsText();
/// The folder holding bundled model `name` (one with a config.json), or nullopt
/// when `name` is not a bundled model or none of bundledModelDirs() holds it.
std::optional<std::string> bundledModelPath(std::string_view name);

}  // namespace attn::models
