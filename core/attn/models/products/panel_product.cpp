#include "attn/models/products/panel_product.h"

#include <Eigen/Core>
#include <algorithm>
#include <vector>

#include "attn/models/gguf/quantized_dot.h"

namespace attn::models {
namespace {

namespace ei = Eigen::internal;
using Index = Eigen::Index;
using Traits = ei::gebp_traits<float, float>;
using RowMapper = ei::const_blas_data_mapper<float, Index, Eigen::RowMajor>;
using ColMapper = ei::const_blas_data_mapper<float, Index, Eigen::ColMajor>;
using ResMapper = ei::blas_data_mapper<float, Index, Eigen::ColMajor>;
using AlignedFloats = std::vector<float, Eigen::aligned_allocator<float>>;

/// Output rows of W decoded per panel: 128 x K f32 (1 MB at K = 2048) stays near the core while
/// it is packed and multiplied. Measured on the Llama-1B forward: CPU seconds within noise for
/// panels of 64, 128, 256 and 512 rows.
constexpr Index kPanelRows = 128;

/// x cut into (row block, depth block) tiles, each packed as gebp's left-hand side; every tile
/// starts 64-byte aligned (gebp loads its left-hand packets aligned).
struct PackedTokens {
  Index rows = 0, depth = 0, mc = 0, kc = 0;
  std::vector<Index> offsets;  // per tile, (row block) * depthBlocks + depth block
  AlignedFloats data;

  Index depthBlocks() const { return (depth + kc - 1) / kc; }
  const float* tile(Index rowBlock, Index depthBlock) const {
    return data.data() + offsets[static_cast<size_t>(rowBlock * depthBlocks() + depthBlock)];
  }
};

void packTokens(const ConstMatRef& x, Index mc, Index kc, PackedTokens& p) {
  p.rows = x.rows(), p.depth = x.cols(), p.mc = mc, p.kc = kc;
  p.offsets.clear();
  Index total = 0;
  for (Index i0 = 0; i0 < p.rows; i0 += mc)
    for (Index k0 = 0; k0 < p.depth; k0 += kc) {
      p.offsets.push_back(total);
      total += (std::min(mc, p.rows - i0) * std::min(kc, p.depth - k0) + 15) / 16 * 16;
    }
  p.data.resize(static_cast<size_t>(total));
  ei::gemm_pack_lhs<float, Index, RowMapper, Traits::mr, Traits::LhsProgress, Traits::LhsPacket4Packing,
                    Eigen::RowMajor>
      pack;
  const RowMapper lhs(x.data(), x.outerStride());
  size_t t = 0;
  for (Index i0 = 0; i0 < p.rows; i0 += mc)
    for (Index k0 = 0; k0 < p.depth; k0 += kc)
      pack(p.data.data() + p.offsets[t++], lhs.getSubMapper(i0, k0), std::min(kc, p.depth - k0),
           std::min(mc, p.rows - i0));
}

/// c [rows of x, m] (column-major) = x * panel^T, panel [m, depth] row-major (decoded rows).
void multiplyPanel(const PackedTokens& x, const float* panel, Index m, AlignedFloats& packedPanel, float* c) {
  ei::gemm_pack_rhs<float, Index, ColMapper, Traits::nr, Eigen::ColMajor> pack;
  ei::gebp_kernel<float, float, Index, ResMapper, Traits::mr, Traits::nr> gebp;
  const ColMapper rhs(panel, x.depth);  // panel^T: column j is decoded row j
  std::fill(c, c + x.rows * m, 0.0f);
  packedPanel.resize(static_cast<size_t>(x.kc * m));
  for (Index k0 = 0, kb = 0; k0 < x.depth; k0 += x.kc, ++kb) {
    const Index kc = std::min(x.kc, x.depth - k0);
    pack(packedPanel.data(), rhs.getSubMapper(k0, 0), kc, m);
    for (Index i0 = 0, ib = 0; i0 < x.rows; i0 += x.mc, ++ib) {
      const ResMapper res(c + i0, x.rows);
      gebp(res, x.tile(ib, kb), packedPanel.data(), std::min(x.mc, x.rows - i0), kc, m, 1.0f);
    }
  }
}

}  // namespace

void linearPackedPanels(const ConstMatRef& x, const LinearWeight& l, Mat& y) {
  if (gguf::quantizedLinear(x, l, y)) return;  // Q8_0 / Q4_K / Q6_K weights, the setting on
  const Index n = x.rows(), K = l.w.cols, out = l.w.rows;
  y.resize(n, out);
  // Eigen's own cache blocking for this shape, so the tiles are those its product would use.
  Index kc = K, mc = n, nc = kPanelRows;
  ei::computeProductBlockingSizes<float, float>(kc, mc, nc, Index{1});
  thread_local PackedTokens tokens;  // kept across calls: first touch of fresh pages is expensive
  packTokens(x, std::max<Index>(mc, 1), std::max<Index>(kc, 1), tokens);
  const Index panels = (out + kPanelRows - 1) / kPanelRows;
  const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(K) * static_cast<double>(out);
  const int threads = static_cast<int>(std::min<Index>(panels, threadsFor(flops)));
  const PackedTokens& shared = tokens;
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    thread_local AlignedFloats decoded, packedPanel, result;
    decoded.resize(static_cast<size_t>(kPanelRows * K));
    result.resize(static_cast<size_t>(n * kPanelRows));
#pragma omp for schedule(dynamic, 1)
    for (Index p = 0; p < panels; ++p) {
      const Index r0 = p * kPanelRows, m = std::min(kPanelRows, out - r0);
      l.w.rowsTo(r0, m, decoded.data());  // the panel's rows are contiguous
      multiplyPanel(shared, decoded.data(), m, packedPanel, result.data());
      auto yc = y.middleCols(r0, m);
      yc = Eigen::Map<const Eigen::MatrixXf>(result.data(), n, m);
      if (!l.b.empty()) yc.rowwise() += l.b.row().segment(r0, m);
    }
  }
}

}  // namespace attn::models
