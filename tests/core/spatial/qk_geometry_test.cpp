// Query-key geometry (AttentionViz): the PCA against numpy's SVD
// (tests/scripts/gen_spatial_fixtures.py), the normalization leaving every
// attention weight unchanged, a hand-made case, and top keys.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "attn/analysis/qk_geometry.h"
#include "attn/io/npy_reader.h"
#include "matrix_matchers.h"

namespace attn {
namespace {

Mat softmaxRows(const Mat& s) {
  Mat p = s;
  for (Eigen::Index i = 0; i < s.rows(); ++i) {
    const float m = s.row(i).maxCoeff();
    p.row(i) = (s.row(i).array() - m).exp().matrix();
    p.row(i) /= p.row(i).sum();
  }
  return p;
}

TEST(QkGeometry, MatchesNumpySvd) {
  auto arrays = readNpzFile(std::string(ATTN_FIXTURE_DIR) + "/spatial/qk_geometry.npz");
  ASSERT_TRUE(arrays.ok()) << arrays.error().message;
  std::map<std::string, Tensor> f;
  for (auto& a : *arrays) f[a.name] = a.values;
  auto g = qkGeometry(Mat(f["q"].slice2d(0)), Mat(f["k"].slice2d(0)));
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->numQueries, 6);
  EXPECT_EQ(g->numKeys, 9);
  EXPECT_NEAR(g->scale, f["scale"].data[0], 1e-5);
  EXPECT_NEAR(g->explained[0], f["explained"].data[0], 1e-5);
  EXPECT_NEAR(g->explained[1], f["explained"].data[1], 1e-5);
  EXPECT_MATRIX_NEAR(g->points, Mat(f["points"].slice2d(0)), 1e-4);
}

TEST(QkGeometry, NormalizationKeepsEveryAttentionWeight) {
  Mat q(3, 2), k(4, 2);
  q << 1, 2, -1, 0.5, 0.3, -2;
  k << 5, 5, 6, 4, 7, 6, 4, 5;  // far from the queries, and longer
  auto g = qkGeometry(q, k);
  ASSERT_TRUE(g.ok());
  EXPECT_MATRIX_NEAR(softmaxRows(g->normalizedQ * g->normalizedK.transpose()), softmaxRows(q * k.transpose()), 1e-5);
  // Before the scaling the means coincide (q times c, k over c); after it the average norms match.
  const float c = static_cast<float>(g->scale);
  EXPECT_MATRIX_NEAR((g->normalizedQ.colwise().mean() / c).eval(), (g->normalizedK.colwise().mean() * c).eval(), 1e-5);
  EXPECT_NEAR(g->normalizedQ.rowwise().norm().mean(), g->normalizedK.rowwise().norm().mean(), 1e-4);
  // Unit, orthogonal components.
  EXPECT_NEAR(g->components.col(0).norm(), 1.0, 1e-5);
  EXPECT_NEAR(g->components.col(0).dot(g->components.col(1)), 0.0, 1e-5);
}

TEST(QkGeometry, HandCaseOnALine) {
  // Queries and keys on the x axis, already centred and of equal norms: the
  // first component is the x axis and carries all the variance.
  Mat q(2, 2), k(2, 2);
  q << -1, 0, 1, 0;
  k << -2, 0, 2, 0;
  auto g = qkGeometry(q, k);
  ASSERT_TRUE(g.ok());
  // mean |q| = 1, mean |k| = 2: c = sqrt(2); q -> +-sqrt(2), k -> +-sqrt(2).
  EXPECT_NEAR(g->scale, std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(g->explained[0], 1.0, 1e-6);
  EXPECT_NEAR(std::abs(g->points(0, 0)), std::sqrt(2.0), 1e-5);
  EXPECT_NEAR(std::abs(g->points(3, 0)), std::sqrt(2.0), 1e-5);
  EXPECT_NEAR(g->points(0, 1), 0.0, 1e-6);
  EXPECT_FALSE(qkGeometry(Mat(2, 3), Mat(2, 2)).ok());
  EXPECT_FALSE(qkGeometry(Mat(0, 2), Mat(2, 2)).ok());
}

TEST(QkGeometry, TopKeys) {
  Eigen::RowVectorXf w(5);
  w << 0.1f, 0.4f, 0.1f, 0.3f, 0.1f;
  EXPECT_EQ(topKeys(w, 3), (std::vector<int>{1, 3, 0}));
  EXPECT_EQ(topKeys(w, 9).size(), 5u);
  EXPECT_TRUE(topKeys(w, 0).empty());
}

}  // namespace
}  // namespace attn
