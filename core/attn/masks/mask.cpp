#include "attn/masks/mask.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>

namespace attn {
namespace {

using Kind = MaskTerm::Kind;

// SplitMix64 finalizer (Steele et al. 2014): a stateless hash of (seed, i, j),
// so a random mask is a predicate and any block can be asked for alone.
uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

bool randomKeeps(const MaskTerm& t, int i, int j) {
  const uint64_t h = mix64(mix64(t.seed ^ mix64(static_cast<uint64_t>(i))) ^ static_cast<uint64_t>(j));
  return static_cast<double>(h >> 11) * 0x1.0p-53 < t.p;
}

bool isGlobal(const MaskTerm& t, int64_t x) {
  return std::binary_search(t.indices.begin(), t.indices.end(), x);
}

bool termAllows(const MaskTerm& t, int i, int j) {
  const int64_t d = static_cast<int64_t>(i) - j;
  switch (t.kind) {
    case Kind::Causal: return j <= i;
    case Kind::Padding:
      if (t.keep) return j < static_cast<int64_t>(t.keep->size()) && (*t.keep)[j] != 0;
      return t.a < 0 || j < t.a;  // unbound token padding: no tokens known yet
    case Kind::Window: return std::llabs(d) <= t.a;
    case Kind::Dilated: return std::llabs(d) <= t.a * t.b && d % t.b == 0;
    case Kind::Global: return isGlobal(t, i) || isGlobal(t, j);
    case Kind::Block: return i / t.a == j / t.a;
    case Kind::Random: return randomKeeps(t, i, j);
    case Kind::Custom:
      return t.keep && i < t.rows && j < t.cols &&
             (*t.keep)[static_cast<size_t>(i) * t.cols + j] != 0;
    case Kind::Window2d: {
      if (t.b <= 0) return false;  // unbound: validate() refuses it before use
      return std::llabs(i / t.b - j / t.b) <= t.a && std::llabs(i % t.b - j % t.b) <= t.a;
    }
  }
  return true;
}

BlockState stateOf(bool anyAllowed, bool allAllowed) {
  if (!anyAllowed) return BlockState::AllMasked;
  return allAllowed ? BlockState::AllAllowed : BlockState::Mixed;
}

// Number of sorted indices in [lo, hi).
int64_t countIn(const std::vector<int64_t>& v, int64_t lo, int64_t hi) {
  return std::lower_bound(v.begin(), v.end(), hi) - std::lower_bound(v.begin(), v.end(), lo);
}

// Exact state of one term over [i0, i1) x [j0, j1) (non-empty), except random
// with 0 < p < 1, which reports Mixed without looking. The offsets d = i - j
// over a rectangle are exactly the integers [i0 - j1 + 1, i1 - 1 - j0].
BlockState termBlockState(const MaskTerm& t, int i0, int i1, int j0, int j1) {
  const int64_t dMin = static_cast<int64_t>(i0) - (j1 - 1), dMax = static_cast<int64_t>(i1 - 1) - j0;
  switch (t.kind) {
    case Kind::Causal: return stateOf(dMax >= 0, dMin >= 0);
    case Kind::Padding: {
      if (!t.keep) {
        if (t.a < 0) return BlockState::AllAllowed;
        return stateOf(j0 < t.a, j1 <= t.a);
      }
      const int64_t n = static_cast<int64_t>(t.keep->size());
      int64_t kept = 0;
      for (int64_t j = j0; j < j1 && j < n; ++j) kept += (*t.keep)[j] != 0;
      return stateOf(kept > 0, kept == j1 - j0);
    }
    case Kind::Window: return stateOf(dMax >= -t.a && dMin <= t.a, dMin >= -t.a && dMax <= t.a);
    case Kind::Dilated: {
      const int64_t reach = t.a * t.b;
      const int64_t lo = std::max(dMin, -reach), hi = std::min(dMax, reach);
      // Any multiple of D in [lo, hi]? The largest multiple <= hi is >= lo.
      const int64_t m = hi >= 0 ? hi / t.b * t.b : -((-hi + t.b - 1) / t.b) * t.b;
      const bool any = lo <= hi && m >= lo;
      const bool all = dMin >= -reach && dMax <= reach && (t.b == 1 || (dMin == dMax && dMin % t.b == 0));
      return stateOf(any, all);
    }
    case Kind::Global: {
      const int64_t rows = countIn(t.indices, i0, i1), cols = countIn(t.indices, j0, j1);
      // Every cell allowed iff every row or every column is global.
      return stateOf(rows > 0 || cols > 0, rows == i1 - i0 || cols == j1 - j0);
    }
    case Kind::Block: {
      const int64_t r0 = i0 / t.a, r1 = (i1 - 1) / t.a, c0 = j0 / t.a, c1 = (j1 - 1) / t.a;
      return stateOf(r0 <= c1 && c0 <= r1, r0 == r1 && c0 == c1 && r0 == c0);
    }
    case Kind::Random:
      if (t.p <= 0.0) return BlockState::AllMasked;
      if (t.p >= 1.0) return BlockState::AllAllowed;
      return BlockState::Mixed;
    case Kind::Window2d: {
      // Bounding boxes of the query and key patches: if even the boxes are
      // apart the block is empty, if even their far corners are within R it is
      // full; otherwise Mixed (conservative, like random: cells are tested).
      if (t.b <= 0) return BlockState::AllMasked;
      const int64_t c = t.b;
      auto box = [c](int64_t lo, int64_t hi, int64_t& r0, int64_t& r1, int64_t& c0, int64_t& c1) {
        r0 = lo / c;
        r1 = (hi - 1) / c;
        c0 = r0 == r1 ? lo % c : 0;
        c1 = r0 == r1 ? (hi - 1) % c : c - 1;
      };
      int64_t qr0, qr1, qc0, qc1, kr0, kr1, kc0, kc1;
      box(i0, i1, qr0, qr1, qc0, qc1);
      box(j0, j1, kr0, kr1, kc0, kc1);
      auto gap = [](int64_t a0, int64_t a1, int64_t b0, int64_t b1) {
        return std::max<int64_t>({0, b0 - a1, a0 - b1});
      };
      auto span = [](int64_t a0, int64_t a1, int64_t b0, int64_t b1) { return std::max(a1 - b0, b1 - a0); };
      const bool none = gap(qr0, qr1, kr0, kr1) > t.a || gap(qc0, qc1, kc0, kc1) > t.a;
      const bool all = span(qr0, qr1, kr0, kr1) <= t.a && span(qc0, qc1, kc0, kc1) <= t.a;
      return none ? BlockState::AllMasked : all ? BlockState::AllAllowed : BlockState::Mixed;
    }
    case Kind::Custom: {
      // The bitmap is already materialized; scanning the block costs no more
      // than computing it.
      int64_t kept = 0;
      for (int i = i0; i < i1; ++i)
        for (int j = j0; j < j1; ++j) kept += termAllows(t, i, j);
      return stateOf(kept > 0, kept == static_cast<int64_t>(i1 - i0) * (j1 - j0));
    }
  }
  return BlockState::Mixed;
}

}  // namespace

Mask Mask::causal() {
  MaskTerm t;
  t.kind = Kind::Causal;
  return Mask({t});
}

Mask Mask::custom(std::vector<uint8_t> keep, int nq, int nk) {
  MaskTerm t;
  t.kind = Kind::Custom;
  t.keep = std::make_shared<const std::vector<uint8_t>>(std::move(keep));
  t.rows = nq;
  t.cols = nk;
  return Mask({t});
}

Mask Mask::operator+(const Mask& other) const {
  std::vector<MaskTerm> terms = terms_;
  terms.insert(terms.end(), other.terms_.begin(), other.terms_.end());
  return Mask(std::move(terms));
}

bool Mask::needsCustomData() const {
  return std::any_of(terms_.begin(), terms_.end(),
                     [](const MaskTerm& t) { return t.kind == Kind::Custom && !t.keep; });
}

Mask Mask::withCustom(std::vector<uint8_t> keep, int nq, int nk) const {
  const Mask c = custom(std::move(keep), nq, nk);
  std::vector<MaskTerm> terms = terms_;
  bool placed = false;
  for (auto& t : terms)
    if (t.kind == Kind::Custom) {
      t = c.terms_[0];
      placed = true;
    }
  if (!placed) terms.push_back(c.terms_[0]);
  return Mask(std::move(terms));
}

Mask Mask::withGridColumns(int cols) const {
  std::vector<MaskTerm> terms = terms_;
  for (auto& t : terms)
    if (t.kind == Kind::Window2d && t.b <= 0) t.b = cols;
  return Mask(std::move(terms));
}

bool Mask::needsGridColumns() const {
  return std::any_of(terms_.begin(), terms_.end(),
                     [](const MaskTerm& t) { return t.kind == Kind::Window2d && t.b <= 0; });
}

bool Mask::hasCausal() const {
  return std::any_of(terms_.begin(), terms_.end(), [](const MaskTerm& t) { return t.kind == Kind::Causal; });
}

Status Mask::validate(int nq, int nk) const {
  const std::string s = spec();
  if (nq <= 0 || nk <= 0) return Error{fmt::format("mask '{}': empty sequence ({} x {})", s, nq, nk)};
  for (const auto& t : terms_) {
    switch (t.kind) {
      case Kind::Global:
        for (int64_t g : t.indices)
          if (g >= std::max(nq, nk))
            return Error{fmt::format("mask '{}': global index {} is past the sequence ({} query, {} key positions)",
                                     s, g, nq, nk)};
        break;
      case Kind::Padding:
        if (t.a > nk)
          return Error{fmt::format("mask '{}': padding length {} is longer than the {} keys", s, t.a, nk)};
        if (t.keep && static_cast<int>(t.keep->size()) != nk)
          return Error{fmt::format("mask '{}': padding was bound to {} key tokens but there are {} keys", s,
                                   t.keep->size(), nk)};
        break;
      case Kind::Custom:
        if (!t.keep)
          return Error{fmt::format("mask '{}': no custom mask was given (a 'mask' array [Nq, Nk] in the input file)", s)};
        if (t.keep->size() != static_cast<size_t>(t.rows) * static_cast<size_t>(std::max(t.cols, 0)))
          return Error{fmt::format("mask '{}': custom mask has {} values for shape [{}, {}]", s, t.keep->size(),
                                   t.rows, t.cols)};
        if (t.rows != nq || t.cols != nk)
          return Error{fmt::format("mask '{}': custom mask has shape [{}, {}] but attention is [{}, {}] (Nq x Nk)",
                                   s, t.rows, t.cols, nq, nk)};
        break;
      case Kind::Window2d:
        if (t.b <= 0)
          return Error{fmt::format("mask '{}': window2d needs the patch grid width: run on an image (--image) "
                                   "or write window2d:R,COLS",
                                   s)};
        break;
      default: break;
    }
  }
  return okStatus();
}

Result<Mask> Mask::bind(int nq, int nk, const std::vector<std::string>& keyTokens) const {
  if (auto st = validate(nq, nk); !st) return st.error();
  std::vector<MaskTerm> terms = terms_;
  for (auto& t : terms) {
    if (t.kind != Kind::Padding || t.a >= 0) continue;
    if (keyTokens.empty())
      return Error{fmt::format("mask '{}': 'padding' reads pad tokens ([PAD], <pad>) from the key tokens, "
                               "but there are none; use padding:LEN",
                               spec())};
    if (static_cast<int>(keyTokens.size()) != nk)
      return Error{fmt::format("mask '{}': {} key tokens for {} keys", spec(), keyTokens.size(), nk)};
    std::vector<uint8_t> valid(keyTokens.size());
    for (size_t j = 0; j < keyTokens.size(); ++j) valid[j] = isPadToken(keyTokens[j]) ? 0 : 1;
    t.keep = std::make_shared<const std::vector<uint8_t>>(std::move(valid));
  }
  return Mask(std::move(terms));
}

bool Mask::allowed(int i, int j) const {
  bool anyPattern = false, patternAllows = false;
  for (const auto& t : terms_) {
    if (t.restricts()) {
      if (!termAllows(t, i, j)) return false;
    } else if (!patternAllows) {
      anyPattern = true;
      patternAllows = termAllows(t, i, j);
    }
  }
  return !anyPattern || patternAllows;
}

// Union of patterns: AllAllowed if one is; AllMasked if all are; else Mixed.
// Intersection with restrictions: AllMasked if one is; AllAllowed if all are.
// A union of several Mixed patterns may in truth cover the block; Mixed is then
// conservative (still correct: the caller tests cells).
BlockState Mask::blockState(int i0, int i1, int j0, int j1) const {
  if (i1 <= i0 || j1 <= j0) return BlockState::AllMasked;
  bool anyPattern = false, patternAll = false, patternAny = false, restrictAll = true;
  for (const auto& t : terms_) {
    const BlockState s = termBlockState(t, i0, i1, j0, j1);
    if (t.restricts()) {
      if (s == BlockState::AllMasked) return BlockState::AllMasked;
      restrictAll = restrictAll && s == BlockState::AllAllowed;
    } else {
      anyPattern = true;
      patternAll = patternAll || s == BlockState::AllAllowed;
      patternAny = patternAny || s != BlockState::AllMasked;
    }
  }
  if (anyPattern && !patternAny) return BlockState::AllMasked;
  const bool patternCovers = !anyPattern || patternAll;
  return patternCovers && restrictAll ? BlockState::AllAllowed : BlockState::Mixed;
}

std::vector<uint8_t> Mask::bitmap(int nq, int nk) const {
  std::vector<uint8_t> b(static_cast<size_t>(std::max(nq, 0)) * std::max(nk, 0));
  for (int i = 0; i < nq; ++i)
    for (int j = 0; j < nk; ++j) b[static_cast<size_t>(i) * nk + j] = allowed(i, j) ? 1 : 0;
  return b;
}

std::string Mask::spec() const {
  if (terms_.empty()) return "none";
  std::string s;
  for (const auto& t : terms_) {
    if (!s.empty()) s += "+";
    switch (t.kind) {
      case Kind::Causal: s += "causal"; break;
      case Kind::Padding: s += t.a < 0 ? "padding" : fmt::format("padding:{}", t.a); break;
      case Kind::Window: s += fmt::format("window:{}", t.a); break;
      case Kind::Dilated: s += fmt::format("dilated:{},{}", t.a, t.b); break;
      case Kind::Global: s += fmt::format("global:{}", fmt::join(t.indices, ",")); break;
      case Kind::Block: s += fmt::format("block:{}", t.a); break;
      case Kind::Random: s += fmt::format("random:{},{}", t.p, t.seed); break;
      case Kind::Custom: s += "custom"; break;
      case Kind::Window2d: s += t.b > 0 ? fmt::format("window2d:{},{}", t.a, t.b) : fmt::format("window2d:{}", t.a); break;
    }
  }
  return s;
}

}  // namespace attn
