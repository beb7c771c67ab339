#pragma once
// Per-row measures of one head's weights [Nq, Nk]: how peaked a row is, how
// far it looks, where its mass goes. Rows are taken to be distributions (the
// analysis rescales bad rows first, see head_analysis.h); all-zero (fully
// masked) rows give 0 everywhere, never NaN.
#include <string>
#include <vector>

#include "attn/analysis/entropy.h"

namespace attn {

/// max_j a_ij per row. Its mean over rows is a head's "confidence" (Voita et
/// al. 2019, "Analyzing Multi-Head Self-Attention", section 4.1).
Vec rowMaxWeight(const Eigen::Ref<const Mat>& weights);

/// max_j a_ij - min_j a_ij over the row's unmasked keys: 0 for uniform
/// attention, near 1 for one-hot; the "max(attention) - min(attention)"
/// collapse monitor. Rows with no unmasked key give 0.
Vec rowMaxMinGap(const Eigen::Ref<const Mat>& weights, const KeepMask& keep = {});

/// The floor under min_j a_ij in rowMaxMinRatio, so that a weight that
/// underflowed to 0 gives a large finite ratio (at most 1e9), not infinity.
inline constexpr double kMaxMinRatioFloor = 1e-9;

/// max_j a_ij / max(min_j a_ij, 1e-9) over the row's unmasked keys: 1 for
/// uniform attention, large for peaked rows. Rows with no unmasked key give 1.
Vec rowMaxMinRatio(const Eigen::Ref<const Mat>& weights, const KeepMask& keep = {});

/// Mean attention distance d_i = sum_j a_ij |i - j| in token positions
/// (Dosovitskiy et al. 2021, "An Image is Worth 16x16 Words", Fig. 7, with
/// token index in place of pixel distance).
Vec rowMeanDistance(const Eigen::Ref<const Mat>& weights);

/// Mass at each relative offset o = j - i, averaged over rows:
/// mass[o - minOffset] = (1/R) sum_i a_{i,i+o}, o in [-(Nq-1), Nk-1],
/// R = rows with any mass. The mass entries sum to 1 for stochastic rows.
struct OffsetProfile {
  int minOffset = 0;
  Vec mass;
  double at(int offset) const {
    const int k = offset - minOffset;
    return k >= 0 && k < mass.size() ? mass[k] : 0.0;
  }
};
OffsetProfile relativeOffsetProfile(const Eigen::Ref<const Mat>& weights);

/// Where a head's mass goes, averaged over rows with any mass (Clark et al.
/// 2019, section 3: attention to the same token, the previous / next token,
/// [CLS] (first-token "sink"), [SEP] and punctuation).
struct PatternShares {
  double diagonal = 0;   // mean_i a_ii                 (rows with i < Nk)
  double previous = 0;   // mean_i a_i,i-1              (rows i >= 1)
  double next = 0;       // mean_i a_i,i+1              (rows with i + 1 < Nk)
  double first = 0;      // mean_i a_i0: attention sink
  double separator = 0;  // mean_i sum_{j in S} a_ij, S = separator/punctuation keys
  int separatorKeys = 0; // |S|
};
PatternShares patternShares(const Eigen::Ref<const Mat>& weights, const std::vector<bool>& separatorKey);

/// Separator or punctuation token, as Clark et al. count them: [SEP]/[CLS]-style
/// special tokens of BERT, GPT-2 and T5 vocabularies ([SEP], </s>, <|endoftext|>,
/// ...), and tokens made only of ASCII or CJK/full-width punctuation (after a
/// leading word-piece marker Ġ or ▁). [CLS] is not counted: it is the first
/// token and has its own share.
bool isSeparatorToken(const std::string& token);
std::vector<bool> separatorKeys(const std::vector<std::string>& keyTokens, int nk);

/// Smallest k such that the k largest weights of row i hold at least `level`
/// of the row's mass (level in (0, 1], default 0.9): 1 for one-hot rows,
/// ceil(level * n) for uniform ones. A sparsity measure in the sense of Correia
/// et al. 2019 ("Adaptively Sparse Transformers"); rows without mass give 0.
Vec rowCoverageK(const Eigen::Ref<const Mat>& weights, double level = 0.9);

}  // namespace attn
