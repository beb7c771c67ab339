// Mask spec parsing, the family list selectors show, and pad-token names.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include "attn/masks/mask.h"
#include "attn/io/quote.h"

namespace attn {
namespace {

using Kind = MaskTerm::Kind;

constexpr std::string_view kFamilyNames =
    "none, causal, padding, padding:LEN, window:W, dilated:W,D, global:I,J,..., block:B, random:P,SEED, custom, window2d:R[,COLS]";
// Indices and widths beyond this are surely typos, and keep W * D far from overflow.
constexpr int64_t kMaxIndex = int64_t{1} << 30;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t pos; (pos = s.find(sep, start)) != std::string_view::npos; start = pos + 1)
    parts.push_back(trim(s.substr(start, pos - start)));
  parts.push_back(trim(s.substr(start)));
  return parts;
}

template <class T>
bool parseNumber(std::string_view s, T& out) {
  if (s.empty()) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

struct TermParser {
  std::string_view spec;  // the whole spec, quoted in errors
  std::string_view term;  // the term being parsed

  Error fail(std::string_view what) const {
    return Error{fmt::format("mask {}: term {}: {}", quoteForMessage(spec), quoteForMessage(term), what)};
  }

  Result<int64_t> integer(std::string_view arg, std::string_view name, int64_t lo) const {
    int64_t v = 0;
    if (!parseNumber(arg, v)) return fail(fmt::format("{} {} is not an integer", name, quoteForMessage(arg)));
    if (v < lo) return fail(fmt::format("{} must be at least {} (got {})", name, lo, v));
    if (v > kMaxIndex) return fail(fmt::format("{} {} is too large (at most {})", name, v, kMaxIndex));
    return v;
  }

  Result<MaskTerm> parse() const {
    const size_t colon = term.find(':');
    const std::string_view name = trim(term.substr(0, colon));
    const bool hasArgs = colon != std::string_view::npos;
    const std::vector<std::string_view> args =
        hasArgs ? split(term.substr(colon + 1), ',') : std::vector<std::string_view>{};
    auto expectArgs = [&](size_t n, std::string_view usage) -> Status {
      if (args.size() != n) return fail(fmt::format("expected {}", usage));
      return okStatus();
    };
    MaskTerm t;
    if (name == "causal" || name == "custom") {
      if (hasArgs) return fail(fmt::format("{} takes no parameters", quoteForMessage(name)));
      t.kind = name == "causal" ? Kind::Causal : Kind::Custom;
    } else if (name == "padding") {
      t.kind = Kind::Padding;
      t.a = -1;
      if (hasArgs) {
        if (auto st = expectArgs(1, "padding:LEN"); !st) return st.error();
        auto len = integer(args[0], "padding length", 0);
        if (!len) return len.error();
        t.a = *len;
      }
    } else if (name == "window" || name == "block") {
      t.kind = name == "window" ? Kind::Window : Kind::Block;
      if (auto st = expectArgs(1, fmt::format("{}:{}", name, name == "window" ? "W" : "B")); !st) return st.error();
      auto w = integer(args[0], name == "window" ? "window" : "block size", 1);
      if (!w) return w.error();
      t.a = *w;
    } else if (name == "window2d") {
      t.kind = Kind::Window2d;
      if (args.empty() || args.size() > 2) return fail("expected window2d:R or window2d:R,COLS");
      auto r = integer(args[0], "radius", 0);
      if (!r) return r.error();
      t.a = *r;
      if (args.size() == 2 && !args[1].empty()) {  // "window2d:1," from a selector's empty COLS
        auto c = integer(args[1], "grid columns", 1);
        if (!c) return c.error();
        t.b = *c;
      }
    } else if (name == "dilated") {
      t.kind = Kind::Dilated;
      if (auto st = expectArgs(2, "dilated:W,D"); !st) return st.error();
      auto w = integer(args[0], "window", 1);
      if (!w) return w.error();
      auto d = integer(args[1], "dilation", 1);
      if (!d) return d.error();
      t.a = *w;
      t.b = *d;
    } else if (name == "global") {
      t.kind = Kind::Global;
      if (args.empty() || (args.size() == 1 && args[0].empty()))
        return fail("expected global:I,J,... (at least one index)");
      for (auto arg : args) {
        auto g = integer(arg, "global index", 0);
        if (!g) return g.error();
        t.indices.push_back(*g);
      }
      std::sort(t.indices.begin(), t.indices.end());
      t.indices.erase(std::unique(t.indices.begin(), t.indices.end()), t.indices.end());
    } else if (name == "random") {
      t.kind = Kind::Random;
      if (auto st = expectArgs(2, "random:P,SEED"); !st) return st.error();
      if (!parseNumber(args[0], t.p) || !std::isfinite(t.p) || t.p < 0.0 || t.p > 1.0)
        return fail(fmt::format("probability {} is not a number in [0, 1]", quoteForMessage(args[0])));
      if (!parseNumber(args[1], t.seed)) return fail(fmt::format("seed {} is not a non-negative integer", quoteForMessage(args[1])));
    } else if (name == "none") {
      return fail("'none' cannot be combined with other terms");
    } else {
      return fail(fmt::format("unknown mask {} (expected {})", quoteForMessage(name), kFamilyNames));
    }
    return t;
  }
};

}  // namespace

Result<Mask> Mask::parse(std::string_view spec) {
  const std::string_view s = trim(spec);
  if (s.empty() || s == "none") return Mask();
  std::vector<MaskTerm> terms;
  for (std::string_view term : split(s, '+')) {
    if (term.empty()) return Error{fmt::format("mask {}: empty term (a '+' with nothing on one side)", quoteForMessage(spec))};
    auto t = TermParser{spec, term}.parse();
    if (!t) return t.error();
    terms.push_back(std::move(t).value());
  }
  return Mask(std::move(terms));
}

bool isPadToken(std::string_view token) {
  static constexpr std::array<std::string_view, 5> kPad = {"[PAD]", "<pad>", "<PAD>", "[pad]", "<|pad|>"};
  return std::find(kPad.begin(), kPad.end(), token) != kPad.end();
}

std::vector<MaskFamilyInfo> maskFamilies() {
  return {
      {"none", "None", "Every query attends to every key.", false, {}, "none"},
      {"causal", "Causal (look-ahead)", "Query i sees keys j <= i only (decoder self-attention).", true, {},
       "causal"},
      {"padding", "Padding", "Keys that are pad tokens ([PAD], <pad>), or keys at or past LEN, are removed.", true,
       {{"LEN", "number of real (non-pad) keys; empty: read pad tokens", ""}}, "padding"},
      {"window", "Sliding window", "Query i sees keys with |i - j| <= W; with causal, the W previous keys.", false,
       {{"W", "keys on each side of the query (at least 1)", "4"}}, "window:4"},
      {"dilated", "Dilated window",
       "Window with gaps: |i - j| <= W*D and i - j divisible by D (Longformer).", false,
       {{"W", "keys on each side (at least 1)", "4"}, {"D", "dilation: distance between kept keys (at least 1)", "2"}},
       "dilated:4,2"},
      {"global", "Global tokens", "Listed positions attend to and are attended by every token (Longformer).", false,
       {{"I,J,...", "comma-separated token positions, from 0", "0"}}, "global:0+window:2"},
      {"block", "Block-diagonal", "Query i sees keys in its own block of B positions.", false,
       {{"B", "block size (at least 1)", "16"}}, "block:16"},
      {"random", "Random", "Each cell kept with probability P, seeded (BigBird's random attention).", false,
       {{"P", "keep probability in [0, 1]", "0.1"}, {"SEED", "seed; the same seed gives the same cells", "42"}},
       "window:2+global:0+random:0.1,42"},
      {"custom", "Custom", "A keep bitmap [Nq, Nk] from the input file's 'mask' array (1 = keep).", false, {},
       "custom"},
      {"window2d", "2-D local window",
       "Image patches: query patch sees the patches within R rows and R columns of it, a (2R+1) x (2R+1) "
       "square (Ramachandran et al. 2019).",
       false,
       {{"R", "patches on each side, in rows and in columns (0: only itself)", "1"},
        {"COLS", "grid width in patches; empty: the image's patch grid", ""}},
       "window2d:1,5"},
  };
}

}  // namespace attn
