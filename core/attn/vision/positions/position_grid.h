#pragma once
// Learned position embeddings of a vision transformer resized to another patch grid, as
// torch.nn.functional.interpolate(mode="bicubic", align_corners=False) resizes the table
// viewed as an image [1, d, rows, cols] (Dosovitskiy et al. 2021, sec. 3.2 "Fine-tuning and
// higher resolution"; DINO / DINOv2's interpolate_pos_encoding).
#include <Eigen/Core>

#include "attn/tensor.h"

namespace attn::vision {

enum class CubicKernel {
  /// torch's upsample_bicubic2d: Keys' cubic convolution with a = -0.75 on the 4 nearest
  /// samples, indices clamped at the border (Dinov2Model).
  Torch,
  /// antialias=True (_upsample_bicubic2d_aa): a = -0.5, the support widened by the scale
  /// when shrinking, taps outside the grid dropped and the weights renormalised, as Pillow
  /// does (Dinov2WithRegistersModel).
  TorchAntialias,
};

/// `table` [inRows * inCols, d], rows row-major over the grid, resized to [outRows * outCols, d].
/// `scaleRows` / `scaleCols`: input pixels per output pixel, inRows / outRows when interpolate
/// is given `size=`, 1 / scale_factor when it is given a scale factor.
Mat interpolatePositionGrid(const Eigen::Ref<const Mat>& table, int inRows, int inCols, int outRows,
                            int outCols, double scaleRows, double scaleCols, CubicKernel kernel);

}  // namespace attn::vision
