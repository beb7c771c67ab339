#pragma once
// Procedural attention masks: a predicate over (query i, key j), so an
// execution path can ask about any block without materializing Nq x Nk.
// Composition rule ("+" in a spec): sparse families (window, dilated, global,
// block, random) are a union of allowed cells; causal and padding restrict
// whatever the rest allows. A spec with only restricting terms restricts "all".
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attn/status.h"

namespace attn {

struct MaskTerm {
  enum class Kind { Causal };
  Kind kind = Kind::Causal;
};

class Mask {
 public:
  Mask() = default;  // "none": everything allowed

  /// Parses a spec such as "none" or "causal".
  static Result<Mask> parse(std::string_view spec);
  static Mask causal();

  /// Checks the spec against the sizes it will be applied to.
  Status validate(int nq, int nk) const;

  bool allowed(int i, int j) const;
  bool isNone() const { return terms_.empty(); }
  /// Row-major Nq x Nk, 1 = keep.
  std::vector<uint8_t> bitmap(int nq, int nk) const;
  /// Canonical spec text, parseable again.
  std::string spec() const;

 private:
  std::vector<MaskTerm> terms_;
};

}  // namespace attn
