#pragma once
// Positional encodings, each applied where its paper applies it:
//  - to the embeddings before projection (sinusoidal, learned),
//  - to each head's q and k after projection (RoPE),
//  - as a bias on each head's scaled logits before masking (ALiBi, T5).
#include <optional>
#include <string_view>

#include "attn/tensor.h"

namespace attn {

enum class PositionalEncoding { None };

std::string_view positionalName(PositionalEncoding p);
std::optional<PositionalEncoding> parsePositional(std::string_view name);

struct AttentionSpec;

/// Embedding-level encodings: returns x with positions added (or x unchanged).
Mat addPositionsToEmbeddings(const Mat& x, const AttentionSpec& spec);
/// q/k-level encodings (in place); positions are row indices.
void applyPositionsToQK(Mat& q, Mat& k, int head, const AttentionSpec& spec);
/// Logit-level bias for one head [nq, nk], or an empty matrix when none.
Mat positionalLogitBias(int head, int nq, int nk, const AttentionSpec& spec);

}  // namespace attn
