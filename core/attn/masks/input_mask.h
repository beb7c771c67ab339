#pragma once
// A loaded file's 'mask' array joins the configured mask as its "custom" term
// (the composition rule of attn/masks/mask.h: a pattern term, so it is a union with
// window/global/random and is restricted by causal/padding).
#include "attn/io/input_file.h"
#include "attn/masks/mask.h"
#include "attn/status.h"

namespace attn {

/// `mask` with the file's keep bitmap given to its custom term(s), or added as
/// a custom term when it has none; `mask` unchanged when the file has no
/// 'mask'. The bitmap must be the input's Nq x Nk: the error names the file.
Result<Mask> maskWithFileMask(const Mask& mask, const LoadedInput& file);

}  // namespace attn
