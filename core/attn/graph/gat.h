#pragma once
// Graph attention (Velickovic et al. 2018, GAT), one layer:
//   z_i = W_h h_i                                   (eq. 1, per head h, W [F, F'])
//   e_ij = LeakyReLU(a_h^T [z_i || z_j]), slope 0.2 (eq. 1-3)
//   alpha_ij = softmax over j in N(i) u {i} of e_ij (eq. 2-3; non-neighbours masked)
//   h'_i = ELU(sum_j alpha_ij z_j), heads concatenated (eq. 5), or
//   h'_i = mean over heads of sum_j alpha_ij z_j (eq. 6, the output layer; no ELU here)
// The weights are kept dense [N, N] per head, exactly 0 off the neighbourhood,
// for the heatmap; N is at most kMaxNodes.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attn/graph/graph_data.h"
#include "attn/status.h"
#include "attn/tensor.h"

namespace attn::graph {

enum class HeadCombine { Concat, Mean };
std::string_view headCombineName(HeadCombine c);

struct GatSpec {
  int heads = 4;
  int outFeatures = 8;          // F' per head
  HeadCombine combine = HeadCombine::Concat;
  float negativeSlope = 0.2f;   // the paper's LeakyReLU slope
  uint64_t seed = 42;
};

/// Per-head parameters: w[h] is [F, F'] (used as z = h W), a[h] is [2F'] (first
/// half scores the query node i, second half the neighbour j). Empty = seeded
/// (Glorot uniform, as the paper's initialization).
struct GatParams {
  std::vector<Mat> w;
  std::vector<Vec> a;
};

struct GatResult {
  std::vector<Mat> logits;   // e_ij per head [N, N], -inf off the neighbourhood
  std::vector<Mat> weights;  // alpha per head [N, N], exactly 0 off the neighbourhood
  std::vector<Mat> z;        // W_h h per head [N, F']
  Mat output;                // [N, H*F'] (concat, after ELU) or [N, F'] (mean)
  GatParams params;          // what was used (loaded or seeded)
  std::vector<uint8_t> keep; // [N, N], the neighbourhood with self-loops

  int numHeads() const { return static_cast<int>(weights.size()); }
};

/// Runs one GAT layer; errors name the parameter and the fault.
Result<GatResult> runGat(const GraphData& graph, const GatSpec& spec, const GatParams& params = {});

}  // namespace attn::graph
