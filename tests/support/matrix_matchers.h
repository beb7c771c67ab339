#pragma once
// EXPECT_MATRIX_NEAR in the manner of manif's test helpers.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <sstream>

namespace attn::test {

template <class A, class B>
::testing::AssertionResult matrixNear(const char* ea, const char* eb, const char* etol,
                                      const A& a, const B& b, double tol) {
  if (a.rows() != b.rows() || a.cols() != b.cols())
    return ::testing::AssertionFailure() << ea << " is " << a.rows() << "x" << a.cols() << " but " << eb
                                         << " is " << b.rows() << "x" << b.cols();
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < a.cols(); ++j) {
      const double x = a(i, j), y = b(i, j);
      const double scale = std::max({1.0, std::abs(x), std::abs(y)});
      if (!(std::abs(x - y) <= tol * scale))
        return ::testing::AssertionFailure() << ea << "(" << i << "," << j << ") = " << x << " but " << eb
                                             << "(" << i << "," << j << ") = " << y << " (tol " << etol << " = "
                                             << tol << ", relative)";
    }
  return ::testing::AssertionSuccess();
}

}  // namespace attn::test

#define EXPECT_MATRIX_NEAR(a, b, tol) EXPECT_PRED_FORMAT3(::attn::test::matrixNear, a, b, tol)
#define ASSERT_MATRIX_NEAR(a, b, tol) ASSERT_PRED_FORMAT3(::attn::test::matrixNear, a, b, tol)
