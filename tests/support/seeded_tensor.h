#pragma once
// A tensor of standard normal floats from attn::SeededRng, for tests that
// write q/k/v files.
#include <cstdint>
#include <utility>
#include <vector>

#include "attn/engine/random.h"
#include "attn/tensor.h"

namespace attn::test {

inline Tensor seededNormalTensor(std::vector<int64_t> shape, uint64_t seed) {
  Tensor t;
  t.shape = std::move(shape);
  int64_t n = 1;
  for (auto s : t.shape) n *= s;
  SeededRng rng(seed);
  t.data.resize(static_cast<size_t>(n));
  for (auto& x : t.data) x = static_cast<float>(rng.normal());
  return t;
}

}  // namespace attn::test
