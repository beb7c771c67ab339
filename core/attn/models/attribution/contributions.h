#pragma once
// What each key token contributes to each query token's representation, from one
// forward pass (no gradients): the attention-norm maps of Kobayashi et al. 2020,
// their variant with the residual and the layer's normalization (Kobayashi et al.
// 2021), and ALTI (Ferrando et al. 2022) with its rollout across layers.
#include <vector>

#include "attn/tensor.h"

namespace attn::models {

/// Every layer of the run (whatever RunOptions::onlyLayer kept); N x N maps, rows are
/// queries i, columns keys j.
struct Contributions {
  /// [layer][head]: ||alpha_ij f(x_j)||_2 with f(x) = (x W_V + b_V) W_O^h, the head's
  /// value then its rows of the output projection; b_O belongs to no token and is left out.
  std::vector<std::vector<Mat>> attentionNorms;
  /// [layer]: ||g_i(sum_h alpha^h_ij f^h(x_j) + [i = j] x_i)||_2, the whole attention
  /// block's share from token j, summed over heads, with the residual; g_i is the
  /// post-LN families' LayerNorm at row i taken apart token by token, the identity for
  /// the pre-norm families (their norm sits inside f, before W_V).
  std::vector<Mat> attentionNormsResLn;
  /// [layer]: ALTI's contributions from the same vectors by the L1 distance; rows sum to 1.
  std::vector<Mat> alti;
  /// alti[L-1] ... alti[0]: the input tokens' share in the last layer's output.
  Mat altiRollout;
};

/// Ferrando et al. 2022, section 3 (the rollout of Abnar & Zuidema 2020 without the
/// added identity, the residual being inside ALTI already): alti[through] ... alti[0].
/// `through` is clamped to the layers present; empty when there are none.
Mat altiRollout(const std::vector<Mat>& alti, int through);

}  // namespace attn::models
