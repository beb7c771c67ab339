#include "attn/variants/multi_hop.h"

#include <fmt/format.h>

#include <limits>

#include "attn/variants/variant_rows.h"

namespace attn::variants {

Mat seededHopMap(int d, int head, InitScheme init, uint64_t seed) {
  return initMatrix(d, d, init, seed, fmt::format("hop.h.h{}", head));
}

Result<MultiHopHead> multiHopAttention(const Mat& q0, const Mat& k, const Mat& v, const std::vector<uint8_t>& allowed,
                                       int hops, HopUpdate update, const Mat& h, float scale, const Mat& bias) {
  if (hops < 1 || hops > 64) return Error{fmt::format("--hops must be between 1 and 64 (got {})", hops)};
  if (q0.cols() != k.cols())
    return Error{fmt::format("multi-hop: queries have width {}, keys {}", q0.cols(), k.cols())};
  if (v.rows() != k.rows()) return Error{fmt::format("multi-hop: {} values for {} keys", v.rows(), k.rows())};
  if (hops > 1 && v.cols() != q0.cols())
    return Error{fmt::format("multi-hop: the update q + o needs values as wide as the queries ({} vs {})", v.cols(),
                             q0.cols())};
  if (update == HopUpdate::Linear && hops > 1 && (h.rows() != q0.cols() || h.cols() != q0.cols()))
    return Error{fmt::format("multi-hop: H is {}x{}, expected {}x{}", h.rows(), h.cols(), q0.cols(), q0.cols())};
  const Eigen::Index nq = q0.rows(), nk = k.rows();
  if (!allowed.empty() && allowed.size() != static_cast<size_t>(nq * nk))
    return Error{"multi-hop: the mask does not fit the queries and keys"};
  if (bias.size() > 0 && (bias.rows() != nq || bias.cols() != nk))
    return Error{"multi-hop: the logit bias does not fit the queries and keys"};
  MultiHopHead out;
  Mat q = q0;
  for (int t = 0; t < hops; ++t) {
    Hop hop;
    hop.query = q;
    hop.logits = scale * (q * k.transpose());
    if (bias.size() > 0) hop.logits += bias;
    if (!allowed.empty())
      for (Eigen::Index i = 0; i < nq; ++i)
        for (Eigen::Index j = 0; j < nk; ++j)
          if (!allowed[static_cast<size_t>(i * nk + j)]) hop.logits(i, j) = -std::numeric_limits<float>::infinity();
    hop.weights = maskedSoftmaxRows(hop.logits);
    hop.output = hop.weights * v;
    hop.entropy = rowEntropy(hop.weights);
    hop.meanEntropy = nq > 0 ? hop.entropy.cast<double>().mean() : 0.0;
    if (t + 1 < hops) q = (update == HopUpdate::Linear ? Mat(q * h) : q) + hop.output;
    out.hops.push_back(std::move(hop));
  }
  return out;
}

}  // namespace attn::variants
