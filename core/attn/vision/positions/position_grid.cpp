#include "attn/vision/positions/position_grid.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace attn::vision {
namespace {

/// One output coordinate's taps: the first input index and the weights of the next ones.
struct GridTaps {
  int first = 0;
  std::vector<float> w;
};

// Keys (1981), "Cubic convolution interpolation for digital image processing", eq. 15.
float keysCubicNear(float x, float a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }       // |x| <= 1
float keysCubicFar(float x, float a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }  // 1 < |x| < 2

/// torch's compute_indices_weights_cubic: source x = scale (i + 0.5) - 0.5 in f32, not clamped;
/// the 4 taps floor(x) - 1 .. floor(x) + 2, each index clamped into the grid.
std::vector<GridTaps> torchCubicTaps(int in, int out, float scale) {
  constexpr float a = -0.75f;
  std::vector<GridTaps> taps(static_cast<size_t>(out));
  for (int i = 0; i < out; ++i) {
    const float x = scale * (static_cast<float>(i) + 0.5f) - 0.5f;
    const int x0 = static_cast<int>(std::floor(x));
    const float t = x - static_cast<float>(x0);
    const float w[4] = {keysCubicFar(t + 1, a), keysCubicNear(t, a), keysCubicNear(1 - t, a),
                        keysCubicFar(2 - t, a)};
    GridTaps& tp = taps[static_cast<size_t>(i)];
    tp.first = 0;
    tp.w.assign(static_cast<size_t>(in), 0.0f);
    for (int j = 0; j < 4; ++j) tp.w[static_cast<size_t>(std::clamp(x0 - 1 + j, 0, in - 1))] += w[j];
  }
  return taps;
}

float antialiasCubic(float x) {  // torch's aa_filter for bicubic: a = -0.5 (Pillow's)
  constexpr float a = -0.5f;
  x = std::fabs(x);
  if (x < 1) return keysCubicNear(x, a);
  if (x < 2) return keysCubicFar(x, a);
  return 0;
}

/// torch's _compute_weights_aa (Pillow's precompute_coeffs): centre scale (i + 0.5), support
/// 2 max(scale, 1), taps in [centre - support + 0.5, centre + support + 0.5) within the grid.
std::vector<GridTaps> antialiasTaps(int in, int out, double scale) {
  const double support = 2.0 * std::max(scale, 1.0), inv = 1.0 / std::max(scale, 1.0);
  std::vector<GridTaps> taps(static_cast<size_t>(out));
  for (int i = 0; i < out; ++i) {
    const double center = scale * (i + 0.5);
    const int lo = std::max(static_cast<int>(center - support + 0.5), 0);
    const int hi = std::min(static_cast<int>(center + support + 0.5), in);
    GridTaps& tp = taps[static_cast<size_t>(i)];
    tp.first = lo;
    double total = 0;
    for (int j = lo; j < hi; ++j) {
      tp.w.push_back(antialiasCubic(static_cast<float>((j - center + 0.5) * inv)));
      total += tp.w.back();
    }
    if (total != 0)
      for (float& v : tp.w) v = static_cast<float>(v / total);
  }
  return taps;
}

std::vector<GridTaps> gridTapsFor(int in, int out, double scale, CubicKernel k) {
  return k == CubicKernel::Torch ? torchCubicTaps(in, out, static_cast<float>(scale))
                                 : antialiasTaps(in, out, scale);
}

}  // namespace

Mat interpolatePositionGrid(const Eigen::Ref<const Mat>& table, int inRows, int inCols, int outRows,
                            int outCols, double scaleRows, double scaleCols, CubicKernel kernel) {
  const auto ty = gridTapsFor(inRows, outRows, scaleRows, kernel),
             tx = gridTapsFor(inCols, outCols, scaleCols, kernel);
  const Eigen::Index d = table.cols();
  // Columns first, then rows: each output row of the grid from the input rows it reads.
  Mat across(static_cast<Eigen::Index>(inRows) * outCols, d);
  for (int r = 0; r < inRows; ++r)
    for (int c = 0; c < outCols; ++c) {
      const GridTaps& t = tx[static_cast<size_t>(c)];
      auto dst = across.row(static_cast<Eigen::Index>(r) * outCols + c);
      dst.setZero();
      for (size_t j = 0; j < t.w.size(); ++j)
        if (t.w[j] != 0.0f)
          dst += t.w[j] * table.row(static_cast<Eigen::Index>(r) * inCols + t.first + static_cast<int>(j));
    }
  Mat out(static_cast<Eigen::Index>(outRows) * outCols, d);
  for (int r = 0; r < outRows; ++r) {
    const GridTaps& t = ty[static_cast<size_t>(r)];
    auto dst = out.middleRows(static_cast<Eigen::Index>(r) * outCols, outCols);
    dst.setZero();
    for (size_t j = 0; j < t.w.size(); ++j)
      if (t.w[j] != 0.0f)
        dst += t.w[j] *
               across.middleRows(static_cast<Eigen::Index>(t.first + static_cast<int>(j)) * outCols, outCols);
  }
  return out;
}

}  // namespace attn::vision
