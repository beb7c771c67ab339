#pragma once
// Shared by the end-to-end tests on the model fixtures: the Hugging Face folders
// tests/scripts/gen_model_fixtures.py wrote under tests/fixtures/models/, and
// looking up a member of an .npz read with readNpzFile.
#include <string>
#include <vector>

#include "attn/io/npy_reader.h"

namespace attn::test {

/// tests/fixtures/models/<name>.
inline std::string modelDir(const std::string& name) { return std::string(ATTN_FIXTURE_DIR) + "/models/" + name; }

/// The member called `name`, or nullptr.
inline const NpyArray* member(const std::vector<NpyArray>& z, const std::string& name) {
  for (const auto& a : z)
    if (a.name == name) return &a;
  return nullptr;
}

}  // namespace attn::test
