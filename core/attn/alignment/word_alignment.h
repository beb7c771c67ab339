#pragma once
// Word alignments read off cross-attention, the picture of Bahdanau et al. 2015 (Fig. 3): each
// target token linked to the source token it attends to most, a reference alignment in the
// Pharaoh format of the statistical-MT tools ("i-j": source i, target j, 0-based; "i?j" or
// "i-j-P": a possible link), and the alignment error rate of Och & Ney 2003 (Eq. 25 of
// "A Systematic Comparison of Various Statistical Alignment Models"):
//   AER(S, P; A) = 1 - (|A ∩ S| + |A ∩ P|) / (|A| + |S|),  with S ⊆ P.
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attn/status.h"
#include "attn/tensor.h"

namespace attn::alignment {

/// A link (source, target), token positions as the views number them (0-based).
using Link = std::pair<int, int>;

struct ReferenceAlignment {
  std::set<Link> sure;
  std::set<Link> possible;  // always holds `sure` too (S ⊆ P)
};

/// Parses a Pharaoh line: links separated by white space, each "i-j" (sure), "i?j" or "i-j-P"
/// (possible). Indices must be below `sourceLen` / `targetLen` when those are > 0. Errors name
/// `source` and the faulty link; at most 100,000 links.
Result<ReferenceAlignment> parsePharaoh(std::string_view text, const std::string& source, int sourceLen = 0,
                                        int targetLen = 0);

/// For each target row of `cross` [Nt, Ns] (weights over the source), the source column of its
/// largest weight (the first on ties): one link per row whose row is not all zero, restricted to
/// the target rows in [firstRow, Nt) and source columns in [firstCol, lastCol) when given.
std::vector<Link> argmaxAlignment(const Mat& cross, int firstRow = 0, int firstCol = 0, int lastCol = -1);

struct AlignmentScore {
  double aer = 0.0, precision = 0.0, recall = 0.0;  // precision against P, recall against S
  int links = 0, sureHits = 0, possibleHits = 0;
};

/// Och & Ney's AER of `links` against `reference` (an empty reference is an error).
Result<AlignmentScore> alignmentErrorRate(const std::vector<Link>& links,
                                          const ReferenceAlignment& reference);

/// The links as a Pharaoh line ("0-0 1-2 …"), sorted.
std::string toPharaoh(std::vector<Link> links);

}  // namespace attn::alignment
