#pragma once
// Procedural attention masks: a predicate over (query i, key j), so an
// execution path can ask about any block without materializing Nq x Nk.
//
// Spec grammar: TERM ("+" TERM)*, TERM = NAME [":" ARG ("," ARG)*], e.g.
// "causal", "window:4", "causal+window:4", "global:0,5+window:2",
// "window:3+global:0+random:0.1,7" (BigBird), "padding+causal".
//
// Composition rule (the "+" of a spec):
//  - pattern terms (window, dilated, global, block, random, custom) are a
//    UNION of allowed cells: a cell is allowed when any pattern allows it;
//    with no pattern term, every cell is allowed;
//  - restricting terms (causal, padding) INTERSECT: a cell must also pass
//    every one of them.
//  allowed(i, j) = (no pattern || OR_p p(i, j)) && AND_r r(i, j).
// So "causal+window:4" is a look-back window (i-4 <= j <= i), and
// "global:0+window:2+padding" is Longformer with pad keys removed.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attn/status.h"

namespace attn {

/// One term of a mask spec. Families and their predicates (d = i - j):
///   causal        j <= i
///   padding       key j is not a pad token (after binding tokens), or
///   padding:L     j < L
///   window:W      |d| <= W (W keys either side; with causal, look back only)
///   dilated:W,D   |d| <= W*D and d % D == 0 (Beltagy et al. 2020, Longformer)
///   global:I,...  i or j is one of the listed indices (Longformer global tokens)
///   block:B       i / B == j / B (block-diagonal)
///   random:P,S    each cell kept with probability P, from a hash of (S, i, j)
///                 (Zaheer et al. 2020, BigBird's random attention)
///   custom        a keep bitmap (file 'mask' array), Nq x Nk, 1 = keep
///   window2d:R[,C] positions are patches of a grid C wide (index p = row * C + col);
///                 keys within R rows and R columns of the query patch, a
///                 (2R+1) x (2R+1) neighbourhood (Ramachandran et al. 2019,
///                 stand-alone self-attention's local window). C comes from the
///                 image input's patch grid when not written.
struct MaskTerm {
  enum class Kind { Causal, Padding, Window, Dilated, Global, Block, Random, Custom, Window2d };
  Kind kind = Kind::Causal;
  int64_t a = 0;       // window W, dilated W, block B, padding length (-1: from tokens)
  int64_t b = 0;       // dilated D; window2d grid columns C (0: not yet bound to a grid)
  double p = 0.0;      // random probability
  uint64_t seed = 0;   // random seed
  std::vector<int64_t> indices;  // global, sorted, unique
  // custom keep bitmap [rows, cols], or padding key validity [cols] once bound.
  std::shared_ptr<const std::vector<uint8_t>> keep;
  int rows = 0, cols = 0;

  bool restricts() const { return kind == Kind::Causal || kind == Kind::Padding; }
};

/// What a rectangular block of the mask holds (for tiled execution).
enum class BlockState {
  AllMasked,   // no cell allowed: skip the block
  AllAllowed,  // every cell allowed: no per-cell test needed
  Mixed,       // test cells with allowed(i, j) (may be conservative for random)
};

/// A family for selectors and help text.
struct MaskParamInfo {
  std::string name;          // e.g. "W"
  std::string description;   // e.g. "keys on each side of the query"
  std::string defaultValue;  // text a selector starts from, e.g. "4"
};
struct MaskFamilyInfo {
  std::string name;         // spec keyword, e.g. "window"
  std::string title;        // short label, e.g. "Sliding window"
  std::string description;  // one line
  bool restricts = false;   // true: intersects (causal, padding); false: union
  std::vector<MaskParamInfo> params;
  std::string example;      // a valid spec using the family
};

/// Every family in the order a selector lists them ("none" first).
std::vector<MaskFamilyInfo> maskFamilies();

/// Tokens treated as padding by the "padding" term: [PAD], <pad>, <PAD>, [pad], <|pad|>.
bool isPadToken(std::string_view token);

class Mask {
 public:
  Mask() = default;  // "none": everything allowed

  /// Parses a spec (grammar above). Errors quote the spec and the bad term.
  static Result<Mask> parse(std::string_view spec);
  static Mask causal();
  /// A keep bitmap, row-major [nq, nk], nonzero = keep. Validation checks the
  /// shape against the attention it is applied to.
  static Mask custom(std::vector<uint8_t> keep, int nq, int nk);

  /// Union/intersection per the composition rule: the terms of both specs.
  Mask operator+(const Mask& other) const;
  /// True when the spec names "custom" but no bitmap has been given yet.
  bool needsCustomData() const;
  /// Gives the bitmap to the spec's "custom" term(s), or adds a custom term
  /// when the spec has none.
  Mask withCustom(std::vector<uint8_t> keep, int nq, int nk) const;

  /// Gives the patch-grid width to window2d terms written without one.
  Mask withGridColumns(int cols) const;
  /// True when a window2d term still needs the grid width.
  bool needsGridColumns() const;

  /// Checks the spec against the sizes it will be applied to.
  Status validate(int nq, int nk) const;
  /// validate() plus binding the key tokens "padding" reads; the engine calls
  /// this and uses the bound mask. keyTokens may be empty when there are none.
  Result<Mask> bind(int nq, int nk, const std::vector<std::string>& keyTokens) const;

  bool allowed(int i, int j) const;
  /// State of rows [i0, i1) x keys [j0, j1), without visiting the cells
  /// (exact for every family except random and custom-with-others; see .cpp).
  BlockState blockState(int i0, int i1, int j0, int j1) const;

  bool isNone() const { return terms_.empty(); }
  /// Has a causal term (T5 then uses its unidirectional buckets).
  bool hasCausal() const;
  const std::vector<MaskTerm>& terms() const { return terms_; }
  /// Row-major Nq x Nk, 1 = keep.
  std::vector<uint8_t> bitmap(int nq, int nk) const;
  /// Canonical spec text, parseable again ("custom" stands for the bitmap).
  std::string spec() const;

 private:
  explicit Mask(std::vector<MaskTerm> terms) : terms_(std::move(terms)) {}
  std::vector<MaskTerm> terms_;
};

}  // namespace attn
