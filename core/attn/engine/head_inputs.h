#pragma once
// From an AttentionInput to each head's q, k, v and score parameters. Every
// array is checked before use (shape against the arrays it must fit, finite
// values); learned matrices that were not loaded are seeded with the spec's
// init scheme, each from its own named stream.
#include "attn/engine.h"

namespace attn {

/// Fills res.heads[*].q/k/v/scoreParams and the projections used
/// (res.wQ..res.bO). Errors name the array(s), their shapes and the fault.
/// With `take` (the same object as `in`), projected q/k/v are moved into the
/// heads instead of copied (left empty in `take`).
Status prepareHeads(const AttentionInput& in, const AttentionSpec& spec, AttentionResult& res,
                    AttentionInput* take = nullptr);

/// Everything runAttention does before the heads are computed: parameters
/// checked, heads prepared, spec.mask bound to the tokens, the memory guard
/// (by spec.weightsHead), token counts checked, positions applied to q/k and
/// each head's logit bias. The streamed analysis starts from here too.
Status setUpHeads(const AttentionInput& in, AttentionSpec& spec, AttentionResult& res);
/// The same, moving projected q/k/v out of `in` (no second copy of the input).
Status setUpHeads(AttentionInput&& in, AttentionSpec& spec, AttentionResult& res);

/// res.output = res.concatOutput * res.wO + res.bO (or the concatenation
/// itself when no W_O applies: projected input without a loaded w_o).
void projectOutput(AttentionResult& res);

}  // namespace attn
