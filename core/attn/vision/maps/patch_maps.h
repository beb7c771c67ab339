#pragma once
// What a vision transformer's attention says about the image, per patch: one
// query's attention laid out on the patch grid, attention rollout on the grid
// (Abnar & Zuidema 2020), DINO's thresholded masks that keep the patches holding
// a fraction of the mass (Caron et al. 2021, section 4.2.1 and Fig. 3) and the
// mean attention distance in pixels (Dosovitskiy et al. 2021, Fig. 7). The
// window and `export` draw these grids; they only scale and colour them.
#include <functional>
#include <vector>

#include "attn/analysis/layers.h"
#include "attn/status.h"
#include "attn/tensor.h"

namespace attn::vision {

/// A vision model's sequence: `prefix` tokens ([CLS], [DIST], registers), then
/// rows x cols patches of `patch` pixels, row-major.
struct PatchLayout {
  int prefix = 1;
  int rows = 0, cols = 0;
  int patch = 0;

  int patches() const { return rows * cols; }
  int tokens() const { return prefix + rows * cols; }
};

/// Errors unless the layout is positive and `tokens` equals prefix + rows * cols.
Status checkPatchLayout(const PatchLayout& layout, int tokens);

/// Query row `query` of an N x N map over the patch keys only (the prefix keys
/// dropped), as [rows, cols]: the heat layer of one head, or of a rollout.
Mat queryPatchMap(const Eigen::Ref<const Mat>& weights, int query, const PatchLayout& layout);

/// The map scaled so its largest value is 1 (the heat layer's levels); all zero stays zero.
Mat normalizedToMax(const Mat& map);

/// DINO's mask (visualize_attention.py): the values normalised to sum 1 and sorted
/// ascending; a patch is kept when the cumulative share up to and including it
/// exceeds 1 - fraction, i.e. the largest values that together hold `fraction` of
/// the mass. 1 = kept, 0 = not; a map with no mass keeps nothing.
Mat massMask(const Mat& map, double fraction = 0.6);

/// Mean attention distance of one head in pixels: for each patch query the
/// attention-weighted Euclidean distance between patch centres over the patch
/// keys, sum_j a_ij * patch * |c_i - c_j|, averaged over the patch queries
/// (Dosovitskiy et al. 2021, Fig. 7; prefix rows and columns ignored).
double meanAttentionDistancePixels(const Eigen::Ref<const Mat>& weights, const PatchLayout& layout);

/// Every head's and the rollout's map for one query, and DINO's mask of each head.
struct QueryMaps {
  int layers = 0, heads = 0, query = 0;
  double fraction = 0.6;
  std::vector<Mat> head;     // [layer * heads + h]: queryPatchMap of that head
  std::vector<Mat> mask;     // [layer * heads + h]: massMask of that head's map
  std::vector<Mat> rollout;  // [layer]: queryPatchMap of the rollout through that layer

  const Mat& headMap(int layer, int h) const { return head[static_cast<size_t>(layer * heads + h)]; }
  const Mat& headMask(int layer, int h) const { return mask[static_cast<size_t>(layer * heads + h)]; }
};

/// Computes QueryMaps for `query` (0 = [CLS]); `progress(fraction)` returning false
/// stops it with the error "cancelled". Errors name a query out of range, a layout
/// that does not match the maps or layers of different shapes.
Result<QueryMaps> computeQueryMaps(const LayeredWeights& layers, int query, const PatchLayout& layout,
                                   double fraction = 0.6, const std::function<bool(double)>& progress = {});

}  // namespace attn::vision
