#include "attn/cpu/packed_keys.h"

#include <algorithm>

namespace attn {

namespace {

using ScorePacket = Eigen::internal::packet_traits<float>::type;
constexpr int kScoreLanes = Eigen::internal::packet_traits<float>::size;
constexpr int kScorePanel = 3 * kScoreLanes;
// Query rows per micro-kernel call: 3 accumulators a row and 4 more registers
// must fit (AVX-512 has 32 vector registers, AVX2 and SSE 16).
#if defined(EIGEN_VECTORIZE_AVX512)
constexpr int kScoreRows = 8;
#else
constexpr int kScoreRows = 4;
#endif

// R query rows x one panel: R x kScorePanel scores in 3R registers, one
// multiply-add per depth index in order. Stores columns [c0, c1) of the panel
// to out (out points at column c0).
template <int R>
void panelScores(const float* q, Eigen::Index ldq, const float* panel, int depth, float* out, Eigen::Index ldOut,
                 int c0, int c1) {
  using namespace Eigen::internal;
  ScorePacket acc[R][3];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
    for (int c = 0; c < 3; ++c) acc[r][c] = pzero(ScorePacket{});
  for (int d = 0; d < depth; ++d) {
    const float* kp = panel + static_cast<size_t>(d) * kScorePanel;
    const ScorePacket k0 = pload<ScorePacket>(kp), k1 = pload<ScorePacket>(kp + kScoreLanes), k2 = pload<ScorePacket>(kp + 2 * kScoreLanes);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const ScorePacket b = pset1<ScorePacket>(q[r * ldq + d]);
      acc[r][0] = pmadd(k0, b, acc[r][0]);
      acc[r][1] = pmadd(k1, b, acc[r][1]);
      acc[r][2] = pmadd(k2, b, acc[r][2]);
    }
  }
  if (c0 == 0 && c1 == kScorePanel) {
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 3
      for (int c = 0; c < 3; ++c) pstoreu(out + r * ldOut + c * kScoreLanes, acc[r][c]);
    return;
  }
  alignas(64) float tmp[kScorePanel];
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < 3; ++c) pstore(tmp + c * kScoreLanes, acc[r][c]);
    std::copy(tmp + c0, tmp + c1, out + r * ldOut);
  }
}

void panelRows(const float* q, Eigen::Index ldq, int rows, const float* panel, int depth, float* out,
               Eigen::Index ldOut, int c0, int c1) {
  int a = 0;
  for (; a + kScoreRows <= rows; a += kScoreRows) panelScores<kScoreRows>(q + a * ldq, ldq, panel, depth, out + a * ldOut, ldOut, c0, c1);
  q += a * ldq;
  out += a * ldOut;
  switch (rows - a) {
    case 7: panelScores<7>(q, ldq, panel, depth, out, ldOut, c0, c1); break;
    case 6: panelScores<6>(q, ldq, panel, depth, out, ldOut, c0, c1); break;
    case 5: panelScores<5>(q, ldq, panel, depth, out, ldOut, c0, c1); break;
    case 4: panelScores<4>(q, ldq, panel, depth, out, ldOut, c0, c1); break;
    case 3: panelScores<3>(q, ldq, panel, depth, out, ldOut, c0, c1); break;
    case 2: panelScores<2>(q, ldq, panel, depth, out, ldOut, c0, c1); break;
    case 1: panelScores<1>(q, ldq, panel, depth, out, ldOut, c0, c1); break;
    default: break;
  }
}

}  // namespace

int PackedKeys::panelKeys() { return kScorePanel; }

bool PackedKeys::fusedMultiplyAdd() {
#if defined(EIGEN_VECTORIZE_FMA)
  return true;
#else
  return false;
#endif
}

void PackedKeys::pack(const Eigen::Ref<const Mat>& k) {
  keys_ = static_cast<int>(k.rows());
  depth_ = static_cast<int>(k.cols());
  const int panels = (keys_ + kScorePanel - 1) / kScorePanel;
  panels_.resize(static_cast<Eigen::Index>(panels) * kScorePanel, depth_);
  if (panels > 0) panels_.bottomRows(kScorePanel).setZero();  // the last panel's padding
  for (int j = 0; j < keys_; ++j) {
    float* dst = panels_.data() + static_cast<size_t>(j / kScorePanel) * depth_ * kScorePanel + j % kScorePanel;
    for (int d = 0; d < depth_; ++d) dst[static_cast<size_t>(d) * kScorePanel] = k(j, d);
  }
}

void PackedKeys::pack(Mat&& k) {
  keys_ = static_cast<int>(k.rows());
  depth_ = static_cast<int>(k.cols());
  const int panels = (keys_ + kScorePanel - 1) / kScorePanel;
  panels_ = std::move(k);
  panels_.conservativeResize(static_cast<Eigen::Index>(panels) * kScorePanel, depth_);
  std::vector<float> block(static_cast<size_t>(kScorePanel) * depth_);
  for (int p = 0; p < panels; ++p) {
    float* base = panels_.data() + static_cast<size_t>(p) * depth_ * kScorePanel;
    const int n = std::min(kScorePanel, keys_ - p * kScorePanel);
    std::copy(base, base + static_cast<size_t>(n) * depth_, block.begin());
    for (int d = 0; d < depth_; ++d)
      for (int b = 0; b < kScorePanel; ++b)
        base[static_cast<size_t>(d) * kScorePanel + b] = b < n ? block[static_cast<size_t>(b) * depth_ + d] : 0.0f;
  }
}

void PackedKeys::scores(const Eigen::Ref<const Mat>& qs, float* out, Eigen::Index ldOut, int j0, int j1) const {
  if (j1 < 0) j1 = keys_;
  const int rows = static_cast<int>(qs.rows());
  for (int p = j0 / kScorePanel; p * kScorePanel < j1; ++p) {
    const int start = p * kScorePanel, c0 = std::max(j0 - start, 0), c1 = std::min(j1 - start, kScorePanel);
    panelRows(qs.data(), qs.outerStride(), rows, panels_.data() + static_cast<size_t>(p) * depth_ * kScorePanel, depth_,
              out + (start + c0 - j0), ldOut, c0, c1);
  }
}

}  // namespace attn
