#include "attn/engine/positions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "attn/engine/random.h"
#include "attn/spec.h"

namespace attn {
namespace {

constexpr double kBase = 10000.0;  // Vaswani et al. 2017 and Su et al. 2021 use the same base
// Learned table entries ~ N(0, 1/2): the same mean square as a sinusoidal entry
// (sin^2 and cos^2 average 1/2), so both encodings weigh the same against the
// N(0, 1) seeded token embeddings.
constexpr double kLearnedStd = 0.7071067811865476;

std::vector<double> alibiSlopesPowerOf2(int n) {
  // Press et al. 2022, sec. 3: start = ratio = 2^(-8/n).
  const double start = std::pow(2.0, -8.0 / n);
  std::vector<double> s(static_cast<size_t>(n));
  for (int h = 0; h < n; ++h) s[h] = std::pow(start, h + 1);
  return s;
}

}  // namespace

std::string_view positionalName(PositionalEncoding p) {
  switch (p) {
    case PositionalEncoding::None: return "none";
    case PositionalEncoding::Sinusoidal: return "sinusoidal";
    case PositionalEncoding::Learned: return "learned";
    case PositionalEncoding::Rope: return "rope";
    case PositionalEncoding::Alibi: return "alibi";
    case PositionalEncoding::T5: return "t5";
    case PositionalEncoding::Sinusoidal2d: return "sinusoidal2d";
  }
  return "none";
}

std::optional<PositionalEncoding> parsePositional(std::string_view name) {
  for (const auto& info : positionalEncodings())
    if (info.name == name) return info.kind;
  return std::nullopt;
}

std::vector<PositionalInfo> positionalEncodings() {
  using P = PositionalEncoding;
  return {
      {P::None, "none", "None", "", "No position information: attention is permutation-equivariant."},
      {P::Sinusoidal, "sinusoidal", "Sinusoidal", "embeddings",
       "sin/cos of position at geometric frequencies, added to the embeddings (Vaswani et al. 2017)."},
      {P::Learned, "learned", "Learned (seeded)", "embeddings",
       "A seeded absolute position table added to the embeddings (as in BERT, GPT-2)."},
      {P::Rope, "rope", "Rotary (RoPE)", "q and k",
       "Rotates q and k pairwise by position, so q.k depends on the offset only (Su et al. 2021)."},
      {P::Alibi, "alibi", "ALiBi", "logits",
       "Adds -m_h |i - j| to head h's logits, with geometric slopes m_h (Press et al. 2022)."},
      {P::T5, "t5", "T5 relative bias", "logits",
       "Adds a seeded per-head bias looked up by log-bucketed offset j - i (Raffel et al. 2020)."},
      {P::Sinusoidal2d, "sinusoidal2d", "Sinusoidal 2-D (image patches)", "embeddings",
       "Image patches: sin/cos of the patch row in half the width, of the column in the other half (ViT, MAE)."},
  };
}

Mat sinusoidalTable(int n, int d) {
  Mat pe(n, d);
  for (int pos = 0; pos < n; ++pos)
    for (int c = 0; c < d; ++c) {
      const int i2 = c - c % 2;  // 2i for both members of the pair
      const double angle = pos / std::pow(kBase, static_cast<double>(i2) / d);
      pe(pos, c) = static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  return pe;
}

Mat sinusoidal2dTable(int n, int d, int cols) {
  Mat pe = Mat::Zero(n, d);
  if (cols <= 0 || n <= 0) return pe;
  const int dRow = d / 2, dCol = d - dRow;
  const int rows = (n + cols - 1) / cols;
  const Mat rowTable = sinusoidalTable(rows, dRow), colTable = sinusoidalTable(std::min(n, cols), dCol);
  for (int p = 0; p < n; ++p) {
    if (dRow > 0) pe.row(p).head(dRow) = rowTable.row(p / cols);
    pe.row(p).tail(dCol) = colTable.row(p % cols);
  }
  return pe;
}

Mat learnedPositionTable(int n, int d, uint64_t seed) {
  Mat t(n, d);
  for (int pos = 0; pos < n; ++pos) {
    SeededRng rng(streamSeed(seed, fmt::format("position:{}", pos)));
    for (int c = 0; c < d; ++c) t(pos, c) = static_cast<float>(kLearnedStd * rng.normal());
  }
  return t;
}

void applyRope(Mat& x) {
  const auto d = x.cols();
  for (Eigen::Index m = 0; m < x.rows(); ++m)
    for (Eigen::Index c = 0; c + 1 < d; c += 2) {
      // RoFormer eq. 34: (x_2i, x_2i+1) rotated by m * theta_i.
      const double angle = static_cast<double>(m) * std::pow(kBase, -static_cast<double>(c) / d);
      const double cs = std::cos(angle), sn = std::sin(angle);
      const double a = x(m, c), b = x(m, c + 1);
      x(m, c) = static_cast<float>(a * cs - b * sn);
      x(m, c + 1) = static_cast<float>(a * sn + b * cs);
    }
}

std::vector<double> alibiSlopes(int numHeads) {
  if (numHeads <= 0) return {};
  int closest = 1;
  while (closest * 2 <= numHeads) closest *= 2;
  std::vector<double> s = alibiSlopesPowerOf2(closest);
  if (closest == numHeads) return s;
  // Press et al.'s reference code: the remaining heads take every other slope
  // of the 2 * closest sequence, which interleaves between the first ones.
  const std::vector<double> doubled = alibiSlopes(2 * closest);
  for (int h = 0; static_cast<int>(s.size()) < numHeads; h += 2) s.push_back(doubled[h]);
  return s;
}

int t5Bucket(int relative, bool bidirectional, int numBuckets, int maxDistance) {
  // Raffel et al. 2020 and the T5 reference code (_relative_position_bucket).
  int bucket = 0;
  int n = 0;
  if (bidirectional) {
    numBuckets /= 2;
    if (relative > 0) bucket += numBuckets;  // keys after the query use the upper half
    n = std::abs(relative);
  } else {
    n = std::max(-relative, 0);  // future keys share bucket 0
  }
  const int maxExact = numBuckets / 2;
  if (n < maxExact) return bucket + n;
  // Logarithmic buckets up to maxDistance; the epsilon makes exact powers
  // (n = 16, 32, 64 for the defaults) land on the bucket the formula gives.
  const double frac = std::log(static_cast<double>(n) / maxExact) /
                      std::log(static_cast<double>(maxDistance) / maxExact) * (numBuckets - maxExact);
  const int large = maxExact + static_cast<int>(std::floor(frac + 1e-9));
  return bucket + std::min(large, numBuckets - 1);
}

Mat addPositionsToEmbeddings(const Mat& x, const AttentionSpec& spec) {
  const int n = static_cast<int>(x.rows()), d = static_cast<int>(x.cols());
  switch (spec.positional) {
    case PositionalEncoding::Sinusoidal: return x + sinusoidalTable(n, d);
    case PositionalEncoding::Learned: return x + learnedPositionTable(n, d, spec.seed);
    // Without an image grid a sequence is one row: the column half is the 1-D table.
    case PositionalEncoding::Sinusoidal2d: return x + sinusoidal2dTable(n, d, spec.gridCols > 0 ? spec.gridCols : n);
    default: return x;
  }
}

void applyPositionsToQK(Mat& q, Mat& k, int /*head*/, const AttentionSpec& spec) {
  if (spec.positional != PositionalEncoding::Rope) return;
  applyRope(q);
  applyRope(k);
}

Mat positionalLogitBias(int head, int numHeads, int nq, int nk, const AttentionSpec& spec) {
  Mat bias;
  if (spec.positional == PositionalEncoding::Alibi) {
    // Press et al. add -m (i - j) for the keys a causal model sees; for keys
    // after the query (bidirectional use) the distance |i - j| is penalized alike.
    const double m = alibiSlopes(numHeads)[static_cast<size_t>(head)];
    bias.resize(nq, nk);
    for (int i = 0; i < nq; ++i)
      for (int j = 0; j < nk; ++j) bias(i, j) = static_cast<float>(-m * std::abs(i - j));
  } else if (spec.positional == PositionalEncoding::T5) {
    // The decoder (causal) uses unidirectional buckets, the encoder bidirectional.
    const bool bidirectional = !spec.mask.hasCausal();
    constexpr int kBuckets = 32;
    SeededRng rng(streamSeed(spec.seed, fmt::format("t5_bias:{}", head)));
    float table[kBuckets];
    for (float& v : table) v = static_cast<float>(rng.normal());
    bias.resize(nq, nk);
    for (int i = 0; i < nq; ++i)
      for (int j = 0; j < nk; ++j) bias(i, j) = table[t5Bucket(j - i, bidirectional, kBuckets)];
  }
  return bias;
}

}  // namespace attn
