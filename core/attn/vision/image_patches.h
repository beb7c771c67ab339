#pragma once
// An image as a sequence: cut into P x P patches (Dosovitskiy et al. 2021, ViT,
// eq. 1 without the learned projection), each patch flattened to one vector of
// P*P*C pixel values, row-major over the patch grid. Attention then runs over
// the patches like over tokens; the grid width goes to spec.gridCols so the
// window2d mask and the sinusoidal2d positions know where each patch lies.
#include <string>
#include <vector>

#include "attn/engine.h"
#include "attn/vision/image_pixels.h"

namespace attn::vision {

struct PatchGrid {
  int patch = 0;               // P, pixels per side
  int rows = 0, cols = 0;      // patches down and across
  int channels = 0;
  int usedHeight = 0, usedWidth = 0;  // rows*P, cols*P: the right/bottom remainder is cropped
  Mat pixels;                  // [rows*cols, P*P*C] raw values in [0, 1], patch (y, x, c) row-major
  std::vector<std::string> tokens;  // "r{row}c{col}", 0-based

  int count() const { return rows * cols; }
};

/// Largest patch count accepted (a 64 x 64 grid); beyond it the N x N views stop being readable.
constexpr int kMaxPatches = 4096;

/// Cuts `img` into patch x patch squares; pixels past the last whole patch
/// (right and bottom) are dropped. Errors say why no grid fits.
Result<PatchGrid> cutPatches(const ImagePixels& img, int patch, const std::string& source);

/// Patch vectors standardized per channel over the used image (x - mean) / std
/// (std 0 -> 1), so a flat bright image does not put every logit at one scale.
Mat standardizedPatches(const PatchGrid& grid);

/// Engine input for self-attention over the patches: x = standardizedPatches,
/// tokens = grid.tokens, gridCols = grid.cols (the engine gives it to the spec).
/// Set spec.dModel = x.cols() (fitSpecToGrid; fitSpecToInput does the same).
AttentionInput patchInput(const PatchGrid& grid);
void fitSpecToGrid(const PatchGrid& grid, AttentionSpec& spec);

/// One query patch's weights laid out on the grid: [rows, cols].
Mat weightsOnGrid(const Mat& weights, int queryPatch, int rows, int cols);

}  // namespace attn::vision
