#include "attn/models/bundled_models.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace attn::models {
namespace {

namespace fs = std::filesystem;

// The example sentences are picked for what each model's heads do (the model
// cards in resources/models/*/README.md say which head): repeated names and
// phrases are what induction and duplicate-token heads act on; regular Chinese verse (every
// line 5 or 7 characters and a punctuation mark) is what the poem model's line heads act on.
std::vector<BundledModel> makeBundledModels() {
  return {
      {"austen-gpt2",
       "en",
       {"Mr. Darcy bowed to Elizabeth, and Elizabeth, with a smile, curtsied to Mr. Darcy.",
        "It is a truth universally acknowledged, that a single man in possession of a good fortune, "
        "must be in want of a wife.",
        "Emma could not forgive her; but as neither provocation nor anger was meant, she said nothing."},
       3,  // layer 4 head 1: most of its weight on the commas and full stops
       0},
      // Masked LM: "[MASK]" shows the top 5 there; "A [SEP] B" is a sentence pair (token types 0, 1).
      {"austen-bert",
       "en",
       {"Mr. Darcy bowed to Elizabeth. [SEP] Elizabeth, with a [MASK], curtsied to Mr. Darcy.",
        "It is a truth universally acknowledged, that a single man in possession of a good fortune, "
        "must be in want of a [MASK].",
        "Emma could not [MASK] her; but as neither provocation nor anger was meant, she said nothing."},
       0,  // layer 1 head 3: most of its weight on the previous token
       2},
      {"induction-2l",
       "",
       {"the red fox saw a big owl on the hill . the red fox saw a big owl on the hill",
        "cat sun milk road happy book rain cat sun milk road happy book rain"},
       1,  // layer 2 head 1: the induction head
       0},
      {"tang-poems-gpt2",
       "zh",
       {"床前明月光，疑是地上霜。举头望明月，低头思故乡。",
        "黄河远上白云间，一片孤城万仞山。羌笛何须怨杨柳，春风不度玉门关。",
        "国破山河在，城春草木深。感时花溅泪，恨别鸟惊心。烽火连三月，家书抵万金。白头搔更短，浑欲不胜簪。"},
       2,  // layer 3 head 3: from a line's last character to the previous line's last
       2},
  };
}

}  // namespace

const std::vector<BundledModel>& bundledModels() {
  static const std::vector<BundledModel> models = makeBundledModels();
  return models;
}

const BundledModel* findBundledModel(std::string_view name) {
  for (const auto& m : bundledModels())
    if (m.name == name) return &m;
  return nullptr;
}

const BundledModel& defaultBundledModel() { return bundledModels().front(); }

std::vector<std::string> bundledModelDirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("ATTNSCOPE_MODELS_DIR"); env && *env) dirs.emplace_back(env);
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && self.has_parent_path())
    dirs.push_back((self.parent_path().parent_path() / "share" / "attnscope" / "models").string());
  return dirs;
}

std::string bundledModelDirsText() {
  std::string text;
  for (const std::string& d : bundledModelDirs()) text += (text.empty() ? "" : ", ") + d;
  return text.empty() ? std::string("no folder") : text;
}

std::optional<std::string> bundledModelPath(std::string_view name) {
  if (!findBundledModel(name)) return std::nullopt;
  std::error_code ec;
  for (const std::string& dir : bundledModelDirs()) {
    const fs::path folder = fs::path(dir) / std::string(name);
    if (fs::is_regular_file(folder / "config.json", ec)) {
      // The folder itself, not a link to it: the model-folder path rule then holds
      // its files to where they really are.
      const fs::path real = fs::canonical(folder, ec);
      return ec ? folder.string() : real.string();
    }
  }
  return std::nullopt;
}

}  // namespace attn::models
