#pragma once
// Shared by the tests on the fixtures (io/ inputs and models/): the Hugging Face folders
// tests/scripts/gen_model_fixtures.py wrote under tests/fixtures/models/, and
// looking up a member of an .npz read with readNpzFile.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "attn/io/npy_reader.h"

namespace attn::test {

/// tests/fixtures/models/<name>.
inline std::string modelDir(const std::string& name) { return std::string(ATTN_FIXTURE_DIR) + "/models/" + name; }

/// tests/fixtures/io/<name>.
inline std::string ioFixture(const std::string& name) { return std::string(ATTN_FIXTURE_DIR) + "/io/" + name; }

/// Every member of the .npz at `path` by name (empty, with a failed expectation, when unreadable).
inline std::map<std::string, NpyArray> loadNpz(const std::string& path) {
  std::map<std::string, NpyArray> out;
  auto npz = readNpzFile(path);
  EXPECT_TRUE(npz.ok()) << (npz ? "" : npz.error().message);
  if (npz)
    for (auto& a : *npz) out[a.name] = std::move(a);
  return out;
}

/// max_i |got[i] - want[offset + i]| over n values.
inline double maxAbsDiff(const float* got, const std::vector<float>& want, size_t offset, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i) m = std::max(m, std::abs(static_cast<double>(got[i]) - want[offset + i]));
  return m;
}

/// The member called `name`, or nullptr.
inline const NpyArray* member(const std::vector<NpyArray>& z, const std::string& name) {
  for (const auto& a : z)
    if (a.name == name) return &a;
  return nullptr;
}

}  // namespace attn::test
