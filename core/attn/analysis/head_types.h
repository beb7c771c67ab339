#pragma once
// What a head does, from one attention map [Nq, Nk] of a repeated random
// sequence [BOS?] r_0 .. r_{n-1} r_0 .. r_{n-1}: the previous-token, induction
// and duplicate-token scores of Olsson et al. 2022 ("In-context Learning and
// Induction Heads", section 2: an induction head at the second copy's token
// r_t attends to the token after r_t's first occurrence) as TransformerLens'
// detect_head patterns place them, plus where the rest of the mass goes
// (first token / sink, self, a local window), and one label per head.
//
// Every score is a mean over a range of query rows (by default the second
// copy, the last `period` rows) of the weight at one key, so 1 is a head that
// does only that; non-finite weights count as 0 and a row whose key falls
// outside the map is skipped, so no score is NaN.
#include <string_view>

#include "attn/tensor.h"

namespace attn {

/// Query rows [begin, end). end < 0 means Nq; both are clamped to [0, Nq].
struct RowRange {
  int begin = 0, end = -1;
};

/// The second copy of a sequence that ends with two copies of `period` tokens:
/// rows [Nq - period, Nq).
RowRange secondCopyRows(int nq, int period);

/// mean_i A[i, i-1] over the rows (rows with i < 1 skipped).
float previousTokenScore(const Eigen::Ref<const Mat>& map, RowRange rows = {1, -1});
/// mean_i A[i, i-period+1]: the token after the previous occurrence (Olsson et al.'s induction).
float inductionScore(const Eigen::Ref<const Mat>& map, int period, RowRange rows);
float inductionScore(const Eigen::Ref<const Mat>& map, int period);  // rows: secondCopyRows
/// mean_i A[i, i-period]: the previous occurrence of the same token.
float duplicateTokenScore(const Eigen::Ref<const Mat>& map, int period, RowRange rows);
float duplicateTokenScore(const Eigen::Ref<const Mat>& map, int period);  // rows: secondCopyRows
/// mean_i A[i, 0]: the first token, the "attention sink" of Xiao et al. 2023.
float sinkScore(const Eigen::Ref<const Mat>& map, RowRange rows = {});
/// mean_i A[i, i].
float selfScore(const Eigen::Ref<const Mat>& map, RowRange rows = {});
/// The local window: keys j with |i - j| <= kLocalWindow (self and the 3 tokens
/// either side; a causal map sees only the 3 before).
inline constexpr int kLocalWindow = 3;
/// mean_i sum_{|i-j| <= window} A[i, j].
float localShare(const Eigen::Ref<const Mat>& map, RowRange rows = {}, int window = kLocalWindow);

enum class HeadType { PreviousToken, Induction, Duplicate, Sink, Self, Local, Broad };
/// "previous-token", "induction", "duplicate", "sink", "self", "local", "broad".
std::string_view headTypeName(HeadType t);

struct HeadTypeScores {
  float previousToken = 0, induction = 0, duplicate = 0, sink = 0, self = 0, local = 0;
};

/// All six scores of one map of a repeated sequence, over the second copy's rows
/// `rows` (the copies are `period` tokens long).
HeadTypeScores headTypeScores(const Eigen::Ref<const Mat>& map, int period, RowRange rows);

/// A head takes the first label, in this order, whose score reaches (>=) its
/// threshold; "broad" when none does. The repeat-specific patterns come first
/// (induction, duplicate, previous-token: a head that spends 40% of each row on
/// one such key is doing that job, whatever it parks on the first token);
/// sink before self and local because a sink is the no-op default of a head
/// with nothing to do (Xiao et al. 2023, "Efficient Streaming Language Models
/// with Attention Sinks"); local last since its window holds the self and
/// previous-token keys. 0.4 on one key is the threshold of the current-,
/// previous- and first-token detectors of ARENA (chapter 1.2, "Intro to
/// Mechanistic Interpretability"): 30x chance on a 2 x 50 token sequence. The
/// local window holds up to 4 keys, so its bar is higher.
struct HeadTypeThresholds {
  float induction = 0.4f;
  float duplicate = 0.4f;
  float previousToken = 0.4f;
  float sink = 0.4f;
  float self = 0.4f;
  float local = 0.6f;  // mass within kLocalWindow
};

HeadType classifyHead(const HeadTypeScores& s, const HeadTypeThresholds& t = {});

}  // namespace attn
