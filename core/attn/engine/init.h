#pragma once
// Seeded initialisation of learned matrices. Each matrix draws from its own
// named stream, so adding a matrix never changes the others.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "attn/tensor.h"

namespace attn {

enum class InitScheme {
  XavierUniform,  // Glorot & Bengio 2010: U(-a, a), a = sqrt(6 / (fan_in + fan_out))
  KaimingNormal,  // He et al. 2015: N(0, 2 / fan_in)
  Orthogonal,     // Saxe et al. 2014: QR of a Gaussian matrix, sign-corrected
};

std::string_view initSchemeName(InitScheme s);
std::optional<InitScheme> parseInitScheme(std::string_view name);

/// A [rows, cols] matrix (fan_in = rows, fan_out = cols, used as x * W).
Mat initMatrix(int rows, int cols, InitScheme scheme, uint64_t seed, std::string_view stream);

/// A bias of `size` values, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) as torch.nn.Linear
/// initializes its bias (any scheme: the schemes above are for matrices).
Vec initBias(int size, int fanIn, uint64_t seed, std::string_view stream);

/// Deterministic token embedding: N(0, 1) entries from a stream keyed by the
/// token text, so the same token always gets the same vector for a seed.
Mat seededTokenEmbeddings(const std::vector<std::string>& tokens, int dModel, uint64_t seed);

}  // namespace attn
