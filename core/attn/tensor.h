#pragma once
// Dense float storage. Row-major matrices match NumPy's C order, so a
// [H, N, d] array is H consecutive row-major [N, d] blocks.
#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::VectorXf;
using MatMap = Eigen::Map<Mat>;
using ConstMatMap = Eigen::Map<const Mat>;

/// An n-dimensional float array with a shape, as read from / written to files.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> data;

  int64_t size() const {
    int64_t n = 1;
    for (auto s : shape) n *= s;
    return n;
  }
  int rank() const { return static_cast<int>(shape.size()); }
  std::string shapeString() const;

  /// View of the 2-D slice `index` of the leading axis ([.., R, C] -> [R, C]).
  ConstMatMap slice2d(int64_t index) const;
  static Tensor fromMat(const Mat& m);
  /// Stacks equally shaped matrices into [n, rows, cols].
  static Tensor stack(const std::vector<Mat>& mats);
};

}  // namespace attn
