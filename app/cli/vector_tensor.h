#pragma once
// A list of numbers (ids, per-step losses, per-pair differences) as a 1-D float32 array for an
// .npz member: shape [n].
#include <cstdint>
#include <vector>

#include "attn/tensor.h"

namespace attn::cli {

template <typename T>
Tensor vectorTensor(const std::vector<T>& v) {
  Tensor t;
  t.shape = {static_cast<int64_t>(v.size())};
  t.data.reserve(v.size());
  for (const T& x : v) t.data.push_back(static_cast<float>(x));
  return t;
}

}  // namespace attn::cli
