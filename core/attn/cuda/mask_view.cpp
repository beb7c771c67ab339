#include "attn/cuda/mask_view.h"

#include <fmt/format.h>

#include <algorithm>

namespace attn::gpu {

static_assert(static_cast<int>(TileKind::AllMasked) == static_cast<int>(BlockState::AllMasked) &&
              static_cast<int>(TileKind::AllAllowed) == static_cast<int>(BlockState::AllAllowed) &&
              static_cast<int>(TileKind::Mixed) == static_cast<int>(BlockState::Mixed));
static_assert(static_cast<int>(TermKind::Window2d) == static_cast<int>(MaskTerm::Kind::Window2d) &&
              static_cast<int>(TermKind::Custom) == static_cast<int>(MaskTerm::Kind::Custom));

Result<MaskView> maskViewFor(const Mask& mask, const PlaceFn& place) {
  MaskView view;
  const auto& terms = mask.terms();
  if (terms.size() > static_cast<size_t>(kMaxMaskTerms))
    return Error{fmt::format("the mask has {} terms; the GPU kernels take at most {}", terms.size(),
                             kMaxMaskTerms)};
  for (const MaskTerm& t : terms) {
    MaskTermView& v = view.terms[view.numTerms++];
    v.kind = static_cast<TermKind>(t.kind);
    v.restricts = t.restricts() ? 1 : 0;
    v.a = t.a;
    v.b = t.b;
    v.p = t.p;
    v.seed = t.seed;
    v.rows = t.rows;
    v.cols = t.cols;
    if (!t.indices.empty()) {
      auto at = place(t.indices.data(), t.indices.size() * sizeof(int64_t));
      if (!at) return at.error();
      v.indices = static_cast<const int64_t*>(*at);
      v.numIndices = static_cast<int32_t>(t.indices.size());
    }
    if (t.keep) {
      // padding: [cols] validity of the keys (cols = its size); custom: [rows, cols]
      if (t.kind == MaskTerm::Kind::Padding) v.cols = static_cast<int32_t>(t.keep->size());
      auto at = place(t.keep->data(), t.keep->size());
      if (!at) return at.error();
      v.keep = static_cast<const uint8_t*>(*at);
      v.hasKeep = 1;
    }
  }
  return view;
}

Result<MaskView> hostMaskView(const Mask& mask) {
  return maskViewFor(mask, [](const void* data, size_t) -> Result<const void*> { return data; });
}

std::vector<uint8_t> tileKinds(const Mask& mask, int nq, int nk, int br, int bc) {
  std::vector<uint8_t> kinds;
  if (mask.isNone()) return kinds;
  const int nqb = numBlocks(nq, br), nkb = numBlocks(nk, bc);
  kinds.resize(static_cast<size_t>(nqb) * nkb);
  for (int qb = 0; qb < nqb; ++qb)
    for (int kb = 0; kb < nkb; ++kb) {
      const int i0 = qb * br, j0 = kb * bc;
      kinds[static_cast<size_t>(qb) * nkb + kb] = static_cast<uint8_t>(
          mask.blockState(i0, std::min(nq, i0 + br), j0, std::min(nk, j0 + bc)));
    }
  return kinds;
}

}  // namespace attn::gpu
