#pragma once
#include "attn/masks/mask.h"
#include "attn/tensor.h"

namespace attn {

/// Sets masked cells of an Nq x Nk matrix to `value`. Row segments are
/// classified with Mask::blockState first, so only the segments a mask
/// boundary crosses are tested cell by cell.
void maskCells(const Mask& mask, Mat& m, float value);

}  // namespace attn
