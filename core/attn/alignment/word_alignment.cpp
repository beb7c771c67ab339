#include "attn/alignment/word_alignment.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace attn::alignment {
namespace {

constexpr size_t kMaxLinks = 100000;

bool readIndex(std::string_view s, int& out) {
  if (s.empty() || s.size() > 9) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && out >= 0;
}

/// One link: "i-j", "i?j" or "i-j-P" / "i-j-S".
Result<std::pair<Link, bool>> parseLink(std::string_view word, const std::string& source) {
  const auto bad = [&] {
    return Error{fmt::format("{}: '{}' is not a link (expected i-j, i?j or i-j-P with 0-based indices)",
                             source, word.substr(0, 40))};
  };
  bool possible = false;
  size_t sep = word.find_first_of("-?");
  if (sep == std::string_view::npos) return bad();
  possible = word[sep] == '?';
  std::string_view first = word.substr(0, sep), rest = word.substr(sep + 1);
  if (!possible) {
    if (const size_t tag = rest.find('-'); tag != std::string_view::npos) {
      const std::string_view kind = rest.substr(tag + 1);
      if (kind != "P" && kind != "S") return bad();
      possible = kind == "P";
      rest = rest.substr(0, tag);
    }
  }
  Link l;
  if (!readIndex(first, l.first) || !readIndex(rest, l.second)) return bad();
  return std::pair{l, possible};
}

}  // namespace

Result<ReferenceAlignment> parsePharaoh(std::string_view text, const std::string& source, int sourceLen,
                                        int targetLen) {
  ReferenceAlignment ref;
  size_t pos = 0, count = 0;
  while (pos < text.size()) {
    const size_t start = text.find_first_not_of(" \t\r\n", pos);
    if (start == std::string_view::npos) break;
    const size_t end = std::min(text.find_first_of(" \t\r\n", start), text.size());
    const std::string_view word = text.substr(start, end - start);
    pos = end;
    if (++count > kMaxLinks) return Error{fmt::format("{}: more than {} links", source, kMaxLinks)};
    auto link = parseLink(word, source);
    if (!link) return link.error();
    const auto [l, possible] = *link;
    if (sourceLen > 0 && l.first >= sourceLen)
      return Error{fmt::format("{}: link {} names source token {}, but the source has {} tokens", source,
                               word, l.first, sourceLen)};
    if (targetLen > 0 && l.second >= targetLen)
      return Error{fmt::format("{}: link {} names target token {}, but the target has {} tokens", source,
                               word, l.second, targetLen)};
    if (!possible) ref.sure.insert(l);
    ref.possible.insert(l);
  }
  return ref;
}

std::vector<Link> argmaxAlignment(const Mat& cross, int firstRow, int firstCol, int lastCol) {
  std::vector<Link> links;
  const int nt = static_cast<int>(cross.rows());
  const int end =
      lastCol < 0 ? static_cast<int>(cross.cols()) : std::min(lastCol, static_cast<int>(cross.cols()));
  for (int t = std::max(firstRow, 0); t < nt; ++t) {
    int best = -1;
    float bestW = 0.0f;
    for (int s = std::max(firstCol, 0); s < end; ++s)
      if (cross(t, s) > bestW) best = s, bestW = cross(t, s);
    if (best >= 0) links.emplace_back(best, t);
  }
  return links;
}

Result<AlignmentScore> alignmentErrorRate(const std::vector<Link>& links,
                                          const ReferenceAlignment& reference) {
  if (reference.sure.empty() && reference.possible.empty())
    return Error{"the reference alignment has no links"};
  const std::set<Link> a(links.begin(), links.end());
  AlignmentScore s;
  s.links = static_cast<int>(a.size());
  for (const Link& l : a) {
    s.sureHits += reference.sure.count(l) ? 1 : 0;
    // P holds S: a link in S counts in both terms, as Och & Ney's definition has it.
    s.possibleHits += (reference.possible.count(l) || reference.sure.count(l)) ? 1 : 0;
  }
  const double denom = static_cast<double>(s.links) + static_cast<double>(reference.sure.size());
  s.aer = denom > 0 ? 1.0 - (s.sureHits + s.possibleHits) / denom : 1.0;
  s.precision = s.links > 0 ? static_cast<double>(s.possibleHits) / s.links : 0.0;
  s.recall = reference.sure.empty() ? 0.0 : static_cast<double>(s.sureHits) / reference.sure.size();
  return s;
}

std::string toPharaoh(std::vector<Link> links) {
  std::sort(links.begin(), links.end());
  std::string out;
  for (const Link& l : links) {
    if (!out.empty()) out += ' ';
    out += fmt::format("{}-{}", l.first, l.second);
  }
  return out;
}

}  // namespace attn::alignment
