#include "attn/tensor.h"

#include <cassert>

namespace attn {

std::string Tensor::shapeString() const {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

ConstMatMap Tensor::slice2d(int64_t index) const {
  assert(rank() >= 2);
  const int64_t rows = shape[shape.size() - 2];
  const int64_t cols = shape.back();
  return ConstMatMap(data.data() + index * rows * cols, rows, cols);
}

Tensor Tensor::fromMat(const Mat& m) {
  Tensor t;
  t.shape = {m.rows(), m.cols()};
  t.data.assign(m.data(), m.data() + m.size());
  return t;
}

Tensor Tensor::stack(const std::vector<Mat>& mats) {
  Tensor t;
  const int64_t r = mats.empty() ? 0 : mats[0].rows();
  const int64_t c = mats.empty() ? 0 : mats[0].cols();
  t.shape = {static_cast<int64_t>(mats.size()), r, c};
  t.data.reserve(static_cast<size_t>(t.size()));
  for (const auto& m : mats) {
    assert(m.rows() == r && m.cols() == c);
    t.data.insert(t.data.end(), m.data(), m.data() + m.size());
  }
  return t;
}

}  // namespace attn
