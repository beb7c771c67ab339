#include "attn/mask.h"

#include <fmt/format.h>

#include "attn/quote.h"

namespace attn {

Result<Mask> Mask::parse(std::string_view spec) {
  Mask m;
  if (spec.empty() || spec == "none") return m;
  if (spec == "causal") return causal();
  return Error{fmt::format("unknown mask spec {} (expected none or causal)", quoteForMessage(spec))};
}

Mask Mask::causal() {
  Mask m;
  m.terms_.push_back({MaskTerm::Kind::Causal});
  return m;
}

Status Mask::validate(int nq, int nk) const {
  if (nq <= 0 || nk <= 0) return Error{fmt::format("mask '{}': empty sequence ({} x {})", spec(), nq, nk)};
  return okStatus();
}

bool Mask::allowed(int i, int j) const {
  for (const auto& t : terms_) {
    switch (t.kind) {
      case MaskTerm::Kind::Causal:
        if (j > i) return false;
        break;
    }
  }
  return true;
}

std::vector<uint8_t> Mask::bitmap(int nq, int nk) const {
  std::vector<uint8_t> b(static_cast<size_t>(nq) * nk);
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
      case MaskTerm::Kind::Causal: s += "causal"; break;
    }
  }
  return s;
}

}  // namespace attn
