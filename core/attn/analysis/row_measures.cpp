#include "attn/analysis/row_measures.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "attn/analysis/coverage_search.h"

namespace attn {
namespace {

bool useMask(const Eigen::Ref<const Mat>& w, const KeepMask& keep) {
  return keep.size() > 0 && keep.rows() == w.rows() && keep.cols() == w.cols();
}

bool rowHasMass(const Eigen::Ref<const Mat>& w, Eigen::Index i) {
  for (Eigen::Index j = 0; j < w.cols(); ++j)
    if (w(i, j) > 0.0f) return true;
  return false;
}

// Decodes one UTF-8 code point at s[pos]; advances pos. Invalid bytes -> U+FFFD.
char32_t nextCodePoint(std::string_view s, size_t& pos) {
  const auto b = static_cast<unsigned char>(s[pos]);
  int len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || pos + static_cast<size_t>(len) > s.size()) {
    ++pos;
    return 0xFFFD;
  }
  char32_t c = len == 1 ? b : (b & (0x7F >> len));
  for (int k = 1; k < len; ++k) c = (c << 6) | (static_cast<unsigned char>(s[pos + k]) & 0x3F);
  pos += static_cast<size_t>(len);
  return c;
}

bool isPunctuation(char32_t c) {
  if (c < 0x80) return std::ispunct(static_cast<int>(c)) != 0;
  return (c >= 0x2010 && c <= 0x2027) ||  // dashes, quotes, ellipsis
         (c >= 0x3000 && c <= 0x303F) ||  // CJK symbols and punctuation: 。、「」
         (c >= 0xFF01 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20) ||  // full-width ！，：；？
         (c >= 0xFF3B && c <= 0xFF40) || (c >= 0xFF5B && c <= 0xFF65) || c == 0x00A1 || c == 0x00BF ||
         c == 0x00AB || c == 0x00BB || c == 0x00B7;
}

}  // namespace

Vec rowMaxWeight(const Eigen::Ref<const Mat>& weights) {
  Vec m = Vec::Zero(weights.rows());
  if (weights.cols() == 0) return m;
  for (Eigen::Index i = 0; i < weights.rows(); ++i) m[i] = std::max(0.0f, weights.row(i).maxCoeff());
  return m;
}

Vec rowMaxMinGap(const Eigen::Ref<const Mat>& weights, const KeepMask& keep) {
  const bool masked = useMask(weights, keep);
  Vec g = Vec::Zero(weights.rows());
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    float lo = 2.0f, hi = -1.0f;
    for (Eigen::Index j = 0; j < weights.cols(); ++j) {
      if (masked ? !keep(i, j) : !(weights(i, j) > 0.0f)) continue;
      lo = std::min(lo, weights(i, j));
      hi = std::max(hi, weights(i, j));
    }
    if (hi >= lo) g[i] = hi - lo;
  }
  return g;
}

Vec rowMaxMinRatio(const Eigen::Ref<const Mat>& weights, const KeepMask& keep) {
  const bool masked = useMask(weights, keep);
  Vec r = Vec::Ones(weights.rows());
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    double lo = 2.0, hi = -1.0;
    for (Eigen::Index j = 0; j < weights.cols(); ++j) {
      if (masked ? !keep(i, j) : !(weights(i, j) > 0.0f)) continue;
      lo = std::min(lo, static_cast<double>(weights(i, j)));
      hi = std::max(hi, static_cast<double>(weights(i, j)));
    }
    if (hi > 0.0 && hi >= lo) r[i] = static_cast<float>(hi / std::max(lo, kMaxMinRatioFloor));
  }
  return r;
}

Vec rowMeanDistance(const Eigen::Ref<const Mat>& weights) {
  Vec d(weights.rows());
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    double s = 0.0;
    for (Eigen::Index j = 0; j < weights.cols(); ++j)
      s += static_cast<double>(weights(i, j)) * static_cast<double>(std::abs(i - j));
    d[i] = static_cast<float>(s);
  }
  return d;
}

OffsetProfile relativeOffsetProfile(const Eigen::Ref<const Mat>& weights) {
  OffsetProfile p;
  const auto nq = weights.rows(), nk = weights.cols();
  if (nq == 0 || nk == 0) return p;
  p.minOffset = -static_cast<int>(nq - 1);
  Eigen::VectorXd acc = Eigen::VectorXd::Zero(nq + nk - 1);
  int rows = 0;
  for (Eigen::Index i = 0; i < nq; ++i) {
    if (!rowHasMass(weights, i)) continue;
    ++rows;
    for (Eigen::Index j = 0; j < nk; ++j) acc[j - i + (nq - 1)] += weights(i, j);
  }
  p.mass = (rows > 0 ? acc / rows : acc).cast<float>();
  return p;
}

PatternShares patternShares(const Eigen::Ref<const Mat>& weights, const std::vector<bool>& separatorKey) {
  PatternShares s;
  const auto nq = weights.rows(), nk = weights.cols();
  double diag = 0, prev = 0, next = 0, first = 0, sep = 0;
  int nDiag = 0, nPrev = 0, nNext = 0, nRows = 0;
  for (Eigen::Index j = 0; j < nk && j < static_cast<Eigen::Index>(separatorKey.size()); ++j)
    s.separatorKeys += separatorKey[static_cast<size_t>(j)] ? 1 : 0;
  for (Eigen::Index i = 0; i < nq; ++i) {
    if (!rowHasMass(weights, i)) continue;
    ++nRows;
    first += weights(i, 0);
    if (i < nk) { diag += weights(i, i); ++nDiag; }
    if (i >= 1 && i - 1 < nk) { prev += weights(i, i - 1); ++nPrev; }
    if (i + 1 < nk) { next += weights(i, i + 1); ++nNext; }
    for (Eigen::Index j = 0; j < nk && j < static_cast<Eigen::Index>(separatorKey.size()); ++j)
      if (separatorKey[static_cast<size_t>(j)]) sep += weights(i, j);
  }
  if (nDiag > 0) s.diagonal = diag / nDiag;
  if (nPrev > 0) s.previous = prev / nPrev;
  if (nNext > 0) s.next = next / nNext;
  if (nRows > 0) {
    s.first = first / nRows;
    s.separator = sep / nRows;
  }
  return s;
}

bool isSeparatorToken(const std::string& token) {
  static const char* const kSpecial[] = {"[SEP]", "</s>", "<|endoftext|>", "<eos>", "<sep>", "[EOS]"};
  for (const char* t : kSpecial)
    if (token == t) return true;
  std::string_view s = token;
  // Word-piece markers: GPT-2's "Ġ" (U+0120, a leading space), SentencePiece's "▁" (U+2581).
  for (std::string_view marker : {std::string_view("\xC4\xA0"), std::string_view("\xE2\x96\x81")})
    if (s.substr(0, marker.size()) == marker) s.remove_prefix(marker.size());
  if (s.substr(0, 2) == "##") s.remove_prefix(2);
  if (s.empty()) return false;
  size_t pos = 0;
  while (pos < s.size())
    if (!isPunctuation(nextCodePoint(s, pos))) return false;
  return true;
}

std::vector<bool> separatorKeys(const std::vector<std::string>& keyTokens, int nk) {
  std::vector<bool> sep(static_cast<size_t>(std::max(nk, 0)), false);
  for (size_t j = 0; j < sep.size() && j < keyTokens.size(); ++j) sep[j] = isSeparatorToken(keyTokens[j]);
  return sep;
}

Vec rowCoverageK(const Eigen::Ref<const Mat>& weights, double level) {
  level = std::clamp(level, 1e-6, 1.0);
  Vec k = Vec::Zero(weights.rows());
  std::vector<float> row;
  for (Eigen::Index i = 0; i < weights.rows(); ++i) {
    row.clear();
    double total = 0.0;
    for (Eigen::Index j = 0; j < weights.cols(); ++j)
      if (weights(i, j) > 0.0f) {
        row.push_back(weights(i, j));
        total += weights(i, j);
      }
    if (total <= 0.0) continue;
    // Relative slack so that a uniform row of n keys at level 0.9 gives
    // ceil(0.9 n) despite fp32 rounding of 1/n.
    const double need = level * total * (1.0 - 1e-6);
    k[i] = static_cast<float>(coverage::countToCover(row, need));
  }
  return k;
}

}  // namespace attn
