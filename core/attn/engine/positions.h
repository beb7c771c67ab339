#pragma once
// Positional encodings, each applied where its paper applies it:
//  - to the embeddings before projection (sinusoidal, learned),
//  - to each head's q and k after projection (RoPE),
//  - as a bias on each head's scaled logits before masking (ALiBi, T5).
// Query positions are 0..Nq-1 and key positions 0..Nk-1 (also in cross-attention).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attn/tensor.h"

namespace attn {

enum class PositionalEncoding {
  None,
  Sinusoidal,  // Vaswani et al. 2017, sec. 3.5: added to the embeddings
  Learned,     // seeded absolute table (BERT/GPT-2 style), added to the embeddings
  Rope,        // Su et al. 2021 (RoFormer), eq. 34: rotates q and k per head
  Alibi,       // Press et al. 2022: -m_h * |i - j| added to the logits
  T5,          // Raffel et al. 2020, sec. 2.1: bucketed relative bias per head
  Sinusoidal2d,  // 2-D sin/cos over an image's patch grid (ViT/MAE style): half the
                 // width encodes the patch row, half the column; needs spec.gridCols
};

std::string_view positionalName(PositionalEncoding p);
std::optional<PositionalEncoding> parsePositional(std::string_view name);

struct PositionalInfo {
  PositionalEncoding kind;
  std::string name;         // spec keyword ("rope")
  std::string title;        // selector label
  std::string appliedTo;    // "embeddings", "q and k", "logits"
  std::string description;  // one line, with the paper
};
/// Every encoding in the order a selector lists them ("none" first).
std::vector<PositionalInfo> positionalEncodings();

struct AttentionSpec;

/// Embedding-level encodings: returns x with positions added (or x unchanged).
Mat addPositionsToEmbeddings(const Mat& x, const AttentionSpec& spec);
/// q/k-level encodings (in place); positions are row indices.
void applyPositionsToQK(Mat& q, Mat& k, int head, const AttentionSpec& spec);
/// Logit-level bias for one head of numHeads [nq, nk], or an empty matrix when none.
Mat positionalLogitBias(int head, int numHeads, int nq, int nk, const AttentionSpec& spec);

// The formulas, exposed for tests and the step-through view.

/// PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)).
Mat sinusoidalTable(int n, int d);
/// 2-D table for n patches on a grid `cols` wide: patch p = (r, c) with
/// r = p / cols, c = p % cols gets sinusoidalTable(r) in its first d/2 columns
/// and sinusoidalTable(c) (width d - d/2) in the rest (Dosovitskiy et al. 2021,
/// app. D.4; He et al. 2022's MAE uses this fixed form).
Mat sinusoidal2dTable(int n, int d, int cols);
/// Learned absolute table: row p from its own seeded stream, so a position's
/// vector does not depend on the sequence length.
Mat learnedPositionTable(int n, int d, uint64_t seed);
/// Rotates each row m of x by angles m * theta_i on the pairs (2i, 2i+1),
/// theta_i = 10000^(-2i/d); an odd last column is left as is.
void applyRope(Mat& x);
/// ALiBi head slopes m_1..m_n: the geometric sequence 2^(-8/n), 2^(-16/n), ...
/// for n a power of 2; otherwise the paper's interpolation (the slopes of the
/// closest lower power of 2, then every other slope of twice that).
std::vector<double> alibiSlopes(int numHeads);
/// T5 relative-position bucket of key j for query i (relative = j - i), with
/// numBuckets and maxDistance as in T5 (32, 128): exact buckets for small
/// distances, logarithmic ones up to maxDistance; bidirectional halves the
/// buckets between past and future keys.
int t5Bucket(int relative, bool bidirectional, int numBuckets = 32, int maxDistance = 128);

}  // namespace attn
