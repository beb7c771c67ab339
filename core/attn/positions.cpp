#include "attn/positions.h"

#include "attn/spec.h"

namespace attn {

std::string_view positionalName(PositionalEncoding p) {
  switch (p) {
    case PositionalEncoding::None: return "none";
  }
  return "none";
}

std::optional<PositionalEncoding> parsePositional(std::string_view name) {
  if (name == "none") return PositionalEncoding::None;
  return std::nullopt;
}

Mat addPositionsToEmbeddings(const Mat& x, const AttentionSpec& spec) {
  switch (spec.positional) {
    case PositionalEncoding::None: return x;
  }
  return x;
}

void applyPositionsToQK(Mat& /*q*/, Mat& /*k*/, int /*head*/, const AttentionSpec& spec) {
  switch (spec.positional) {
    case PositionalEncoding::None: return;
  }
}

Mat positionalLogitBias(int /*head*/, int /*nq*/, int /*nk*/, const AttentionSpec& spec) {
  switch (spec.positional) {
    case PositionalEncoding::None: return {};
  }
  return {};
}

}  // namespace attn
