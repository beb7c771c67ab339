#include "attn/masks/input_mask.h"

#include <fmt/format.h>

namespace attn {

Result<Mask> maskWithFileMask(const Mask& mask, const LoadedInput& file) {
  if (file.maskKeep.empty()) return mask;
  const AttentionInput& in = file.input;
  // Precomputed weights only: nothing is computed, so there is nothing to mask.
  if (!file.hasEngineInput()) return mask;
  const long long nq = in.isProjected() ? in.queryRows() : in.x.rows();
  const long long nk = in.isProjected() ? in.k.front().rows() : (in.xKv.size() > 0 ? in.xKv.rows() : nq);
  if (file.maskRows != nq || file.maskCols != nk)
    return Error{fmt::format("{}: 'mask' is [{}, {}] but the attention is [{}, {}] (queries x keys)", file.path,
                             file.maskRows, file.maskCols, nq, nk)};
  if (file.maskKeep.size() != static_cast<size_t>(nq) * static_cast<size_t>(nk))
    return Error{fmt::format("{}: 'mask' has {} values for [{}, {}]", file.path, file.maskKeep.size(), nq, nk)};
  return mask.withCustom(file.maskKeep, static_cast<int>(nq), static_cast<int>(nk));
}

}  // namespace attn
