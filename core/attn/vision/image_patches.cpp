#include "attn/vision/image_patches.h"

#include <fmt/format.h>

#include <cmath>

namespace attn::vision {

Result<PatchGrid> cutPatches(const ImagePixels& img, int patch, const std::string& source) {
  if (auto st = checkImagePixels(img, source); !st) return st.error();
  if (patch < 1) return Error{fmt::format("{}: patch size must be at least 1 (got {})", source, patch)};
  if (patch > img.width || patch > img.height)
    return Error{fmt::format("{}: patch size {} is larger than the {} x {} image", source, patch, img.width,
                             img.height)};
  PatchGrid g;
  g.patch = patch;
  g.rows = img.height / patch;
  g.cols = img.width / patch;
  g.channels = img.channels;
  g.usedHeight = g.rows * patch;
  g.usedWidth = g.cols * patch;
  if (static_cast<long long>(g.rows) * g.cols > kMaxPatches)
    return Error{fmt::format("{}: {} x {} patches of {} pixels is {} patches (at most {}); use a larger patch size",
                             source, g.cols, g.rows, patch, static_cast<long long>(g.rows) * g.cols, kMaxPatches)};
  const int dim = patch * patch * img.channels;
  g.pixels.resize(g.count(), dim);
  for (int r = 0; r < g.rows; ++r)
    for (int c = 0; c < g.cols; ++c) {
      const int p = r * g.cols + c;
      int k = 0;
      for (int y = 0; y < patch; ++y)
        for (int x = 0; x < patch; ++x)
          for (int ch = 0; ch < img.channels; ++ch) g.pixels(p, k++) = img.at(r * patch + y, c * patch + x, ch);
      g.tokens.push_back(fmt::format("r{}c{}", r, c));
    }
  return g;
}

Mat standardizedPatches(const PatchGrid& grid) {
  Mat x = grid.pixels;
  const int ch = grid.channels;
  for (int c = 0; c < ch; ++c) {
    double sum = 0, sq = 0;
    long long n = 0;
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      for (Eigen::Index k = c; k < x.cols(); k += ch) {
        sum += x(i, k);
        ++n;
      }
    const double mean = n ? sum / n : 0.0;
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      for (Eigen::Index k = c; k < x.cols(); k += ch) sq += (x(i, k) - mean) * (x(i, k) - mean);
    const double sd = n ? std::sqrt(sq / n) : 0.0;
    const double inv = sd > 1e-12 ? 1.0 / sd : 1.0;
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      for (Eigen::Index k = c; k < x.cols(); k += ch) x(i, k) = static_cast<float>((x(i, k) - mean) * inv);
  }
  return x;
}

AttentionInput patchInput(const PatchGrid& grid) {
  AttentionInput in;
  in.x = standardizedPatches(grid);
  in.queryTokens = grid.tokens;
  in.gridCols = grid.cols;
  return in;
}

void fitSpecToGrid(const PatchGrid& grid, AttentionSpec& spec) {
  spec.dModel = grid.patch * grid.patch * grid.channels;
  spec.gridCols = grid.cols;
}

Mat weightsOnGrid(const Mat& weights, int queryPatch, int rows, int cols) {
  Mat g = Mat::Zero(rows, cols);
  if (queryPatch < 0 || queryPatch >= weights.rows()) return g;
  for (int p = 0; p < rows * cols && p < weights.cols(); ++p) g(p / cols, p % cols) = weights(queryPatch, p);
  return g;
}

}  // namespace attn::vision
