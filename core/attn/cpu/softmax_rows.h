#pragma once
// The row kernels the tiled softmax and the streamed analysis share: masked
// scores, a row max with independent accumulators, and exp(s - m) in place
// with the entropy numerator (tiled_attention.h). Inline: called per row in
// the innermost loops.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/masks/mask.h"

namespace attn::softmax_rows {

// Masked scores hold a large finite negative value rather than -inf so that
// (s - m) stays finite and e * (s - m) is 0, not NaN; their e is then forced to
// exactly 0 (a vectorized exp of a huge negative argument returns ~1e-39).
constexpr float kMasked = -1e30f;
constexpr float kMaskedBelow = -1e29f;
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// Row segments a Mixed tile is classified in before any cell is tested: a
// causal or band tile then tests only the segments its boundary crosses.
constexpr int kMaskSegment = 32;

// Writes kMasked into the masked cells of a Mixed tile whose (0, 0) is (i0, j0).
template <class Tile>
void maskMixedTile(const Mask& mask, int i0, int j0, Tile&& tile) {
  const int r = static_cast<int>(tile.rows()), c = static_cast<int>(tile.cols());
  for (int a = 0; a < r; ++a) {
    const int i = i0 + a;
    for (int b0 = 0; b0 < c; b0 += kMaskSegment) {
      const int b1 = std::min(c, b0 + kMaskSegment);
      switch (mask.blockState(i, i + 1, j0 + b0, j0 + b1)) {
        case BlockState::AllAllowed: break;
        case BlockState::AllMasked:
          for (int b = b0; b < b1; ++b) tile(a, b) = kMasked;
          break;
        case BlockState::Mixed:
          for (int b = b0; b < b1; ++b)
            if (!mask.allowed(i, j0 + b)) tile(a, b) = kMasked;
          break;
      }
    }
  }
}

// Max of n floats with four independent vector accumulators (Eigen's redux
// keeps one dependency chain: about twice the time on a 512-key row).
inline float rowMax(const float* s, int n) {
  using namespace Eigen::internal;
  using Packet = packet_traits<float>::type;
  constexpr int kLanes = packet_traits<float>::size;
  float m = -std::numeric_limits<float>::infinity();
  int j = 0;
  if (n >= 4 * kLanes) {
    Packet a = ploadu<Packet>(s), b = ploadu<Packet>(s + kLanes), c = ploadu<Packet>(s + 2 * kLanes),
           d = ploadu<Packet>(s + 3 * kLanes);
    for (j = 4 * kLanes; j + 4 * kLanes <= n; j += 4 * kLanes) {
      a = pmax(a, ploadu<Packet>(s + j));
      b = pmax(b, ploadu<Packet>(s + j + kLanes));
      c = pmax(c, ploadu<Packet>(s + j + 2 * kLanes));
      d = pmax(d, ploadu<Packet>(s + j + 3 * kLanes));
    }
    m = predux_max(pmax(pmax(a, b), pmax(c, d)));
  }
  for (; j < n; ++j) m = std::max(m, s[j]);
  return m;
}

// In place: s becomes e = exp(s - m), 0 where masked (s below kMaskedBelow,
// or -inf); returns l = sum e and t = sum e (s - m). One load, one store and
// one vectorized exp per cell; masked cells are cleared with a lane mask.
inline void expRowInPlace(float* s, int n, float m, bool mayMask, double& l, double& t) {
  using namespace Eigen::internal;
  using Packet = packet_traits<float>::type;
  constexpr int kLanes = packet_traits<float>::size;
  const Packet pm = pset1<Packet>(m), below = pset1<Packet>(kMaskedBelow);
  Packet accL = pset1<Packet>(0.0f), accT = pset1<Packet>(0.0f);
  int j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    const Packet v = ploadu<Packet>(s + j);
    Packet d = psub(v, pm);
    Packet x = pexp(d);
    if (mayMask) {
      const Packet keep = pcmp_le(below, v);  // all ones where allowed
      x = pand(x, keep);
      d = pand(d, keep);
    }
    pstoreu(s + j, x);
    accL = padd(accL, x);
    accT = pmadd(x, d, accT);
  }
  float lf = predux(accL), tf = predux(accT);
  for (; j < n; ++j) {
    if (mayMask && !(s[j] >= kMaskedBelow)) {
      s[j] = 0.0f;
      continue;
    }
    const float d = s[j] - m, x = std::exp(d);
    s[j] = x;
    lf += x;
    tf += x * d;
  }
  l = lf;
  t = tf;
}

}  // namespace attn::softmax_rows
