// interpolatePositionGrid against torch.nn.functional.interpolate itself (mode="bicubic",
// align_corners=False; with antialias=True; and with the scale factor older Dinov2Embeddings
// passed), on the 4 x 4 grid of 3-vectors gen_vision_fixtures_dino_clip.py resized with torch;
// and cases worked by hand.
#include "attn/vision/positions/position_grid.h"

#include <gtest/gtest.h>

#include "model_fixtures.h"

namespace attn::vision {
namespace {

using attn::test::loadNpz;
using attn::test::maxAbsDiff;

Mat npzMatrix(const std::map<std::string, NpyArray>& z, const std::string& key) {
  const NpyArray& a = z.at(key);
  Mat m(a.shape[0], a.shape[1]);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = a.values.data[static_cast<size_t>(i)];
  return m;
}

TEST(PositionGrid, EqualsTorchBicubicForEverySizeAndKernel) {
  const auto z = loadNpz(std::string(ATTN_FIXTURE_DIR) + "/vision/position_grid.npz");
  const Mat table = npzMatrix(z, "table");
  for (auto [rows, cols] : {std::pair{5, 5}, {3, 5}, {7, 2}, {4, 4}}) {
    const std::string tag = std::to_string(rows) + "x" + std::to_string(cols);
    for (auto [prefix, kernel] :
         {std::pair{"size_", CubicKernel::Torch}, {"aa_", CubicKernel::TorchAntialias}}) {
      const Mat want = npzMatrix(z, prefix + tag);
      const Mat got = interpolatePositionGrid(table, 4, 4, rows, cols, 4.0 / rows, 4.0 / cols, kernel);
      ASSERT_EQ(got.rows(), rows * cols) << prefix << tag;
      EXPECT_LE(maxAbsDiff(got.data(), z.at(prefix + tag).values.data, 0, static_cast<size_t>(got.size())),
                1e-5)
          << prefix << tag;
    }
  }
  // scale_factor ((5 + 0.1) / 4, (3 + 0.1) / 4): torch maps output i to (i + 0.5) / s - 0.5.
  const Mat legacy = interpolatePositionGrid(table, 4, 4, 5, 3, 4 / 5.1, 4 / 3.1, CubicKernel::Torch);
  EXPECT_LE(maxAbsDiff(legacy.data(), z.at("legacy_5x3").values.data, 0, static_cast<size_t>(legacy.size())),
            1e-5);
}

TEST(PositionGrid, HandWorkedCases) {
  // The same grid size is the identity for both kernels.
  Mat t(4, 1);
  t << 1, 2, 3, 4;  // a 2 x 2 grid
  for (auto k : {CubicKernel::Torch, CubicKernel::TorchAntialias})
    EXPECT_TRUE(interpolatePositionGrid(t, 2, 2, 2, 2, 1.0, 1.0, k).isApprox(t));
  // A constant grid stays constant: the weights sum to 1 (clamped taps, or renormalised).
  Mat c = Mat::Constant(9, 2, 0.75f);
  for (auto k : {CubicKernel::Torch, CubicKernel::TorchAntialias}) {
    const Mat r = interpolatePositionGrid(c, 3, 3, 5, 2, 3.0 / 5, 3.0 / 2, k);
    EXPECT_LE((r.array() - 0.75f).abs().maxCoeff(), 1e-6f);
  }
  // One row [0, 1] widened to 4 samples (scale 0.5): sources -0.25, 0.25, 0.75, 1.25, taps
  // floor - 1 .. floor + 2 clamped to the row. Keys' kernel, a = -0.75:
  // near(x) = ((a + 2) x - (a + 3)) x^2 + 1, far(x) = ((a x - 5a) x + 8a) x - 4a.
  // At -0.25 (t = 0.75): sample 1 gets far(1.25) = -0.10546875 alone, an overshoot below 0.
  // At 0.25 (t = 0.25): sample 1 gets near(0.75) + far(1.75) = 0.26171875 - 0.03515625.
  Mat row(2, 1);
  row << 0, 1;
  const Mat up = interpolatePositionGrid(row, 1, 2, 1, 4, 1.0, 0.5, CubicKernel::Torch);
  EXPECT_NEAR(up(0, 0), -0.10546875, 1e-6);
  EXPECT_NEAR(up(1, 0), 0.2265625, 1e-6);
  EXPECT_NEAR(up(2, 0), 1 - 0.2265625, 1e-6);  // the mirror image
  EXPECT_NEAR(up(3, 0), 1 + 0.10546875, 1e-6);
}

}  // namespace
}  // namespace attn::vision
