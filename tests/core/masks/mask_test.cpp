// Mask families, composition and block queries against brute-force predicates
// written here independently of core/attn/masks/mask.cpp.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "attn/masks/mask.h"

namespace attn {
namespace {

using Pred = std::function<bool(int, int)>;

Mask parsed(std::string_view spec) {
  auto m = Mask::parse(spec);
  EXPECT_TRUE(m.ok()) << spec << ": " << (m.ok() ? "" : m.error().message);
  return m.ok() ? std::move(m).value() : Mask();
}

std::string parseError(std::string_view spec) {
  auto m = Mask::parse(spec);
  EXPECT_FALSE(m.ok()) << spec << " parsed but should not";
  return m.ok() ? "" : m.error().message;
}

void expectBitmapEquals(const Mask& m, const Pred& ref, int nq, int nk) {
  const auto b = m.bitmap(nq, nk);
  ASSERT_EQ(b.size(), static_cast<size_t>(nq) * nk);
  for (int i = 0; i < nq; ++i)
    for (int j = 0; j < nk; ++j) {
      ASSERT_EQ(b[static_cast<size_t>(i) * nk + j], ref(i, j) ? 1 : 0)
          << m.spec() << " at (" << i << ", " << j << ") for " << nq << " x " << nk;
      ASSERT_EQ(m.allowed(i, j), ref(i, j));
    }
}

// Independent predicates.
bool causal(int i, int j) { return j <= i; }
Pred window(int w) { return [w](int i, int j) { return std::abs(i - j) <= w; }; }
Pred dilated(int w, int d) {
  return [w, d](int i, int j) { return std::abs(i - j) <= w * d && std::abs(i - j) % d == 0; };
}
Pred global(std::set<int> g) { return [g](int i, int j) { return g.count(i) > 0 || g.count(j) > 0; }; }
Pred block(int b) { return [b](int i, int j) { return i / b == j / b; }; }

TEST(Mask, EveryFamilyMatchesItsPredicate) {
  for (auto [nq, nk] : {std::pair{1, 1}, {9, 9}, {16, 16}, {7, 12}, {12, 5}}) {
    expectBitmapEquals(parsed("none"), [](int, int) { return true; }, nq, nk);
    expectBitmapEquals(parsed("causal"), causal, nq, nk);
    expectBitmapEquals(parsed("padding:3"), [](int, int j) { return j < 3; }, nq, nk);
    expectBitmapEquals(parsed("window:1"), window(1), nq, nk);
    expectBitmapEquals(parsed("window:3"), window(3), nq, nk);
    expectBitmapEquals(parsed("dilated:2,3"), dilated(2, 3), nq, nk);
    expectBitmapEquals(parsed("dilated:3,1"), window(3), nq, nk);
    expectBitmapEquals(parsed("global:0,4"), global({0, 4}), nq, nk);
    expectBitmapEquals(parsed("block:4"), block(4), nq, nk);
    expectBitmapEquals(parsed("block:1"), [](int i, int j) { return i == j; }, nq, nk);
  }
}

TEST(Mask, HandDrawnLookBackWindow) {
  // causal+window:2 on 5 tokens, drawn by hand.
  const std::vector<uint8_t> expected = {
      1, 0, 0, 0, 0,  //
      1, 1, 0, 0, 0,  //
      1, 1, 1, 0, 0,  //
      0, 1, 1, 1, 0,  //
      0, 0, 1, 1, 1,  //
  };
  EXPECT_EQ(parsed("causal+window:2").bitmap(5, 5), expected);
  // dilated:2,2 on 5 tokens: offsets -4, -2, 0, 2, 4.
  const std::vector<uint8_t> dil = {
      1, 0, 1, 0, 1,  //
      0, 1, 0, 1, 0,  //
      1, 0, 1, 0, 1,  //
      0, 1, 0, 1, 0,  //
      1, 0, 1, 0, 1,  //
  };
  EXPECT_EQ(parsed("dilated:2,2").bitmap(5, 5), dil);
}

TEST(Mask, CompositionIsUnionOfPatternsRestrictedByCausalAndPadding) {
  const Mask random = parsed("random:0.2,9");
  auto rnd = [&](int i, int j) { return random.allowed(i, j); };
  const int n = 14;
  // Longformer: window + global (union).
  expectBitmapEquals(parsed("global:0,5+window:2"),
                     [](int i, int j) { return window(2)(i, j) || global({0, 5})(i, j); }, n, n);
  // BigBird: window + global + random (union).
  expectBitmapEquals(parsed("window:1+global:0+random:0.2,9"),
                     [&](int i, int j) { return window(1)(i, j) || global({0})(i, j) || rnd(i, j); }, n, n);
  // Causal restricts the union, wherever it is written.
  const Pred lookBack = [](int i, int j) { return causal(i, j) && (window(2)(i, j) || global({3})(i, j)); };
  expectBitmapEquals(parsed("causal+window:2+global:3"), lookBack, n, n);
  expectBitmapEquals(parsed("window:2+causal+global:3"), lookBack, n, n);
  // Restrictions alone restrict "everything"; two restrictions intersect.
  expectBitmapEquals(parsed("causal+padding:10"), [](int i, int j) { return causal(i, j) && j < 10; }, n, n);
  expectBitmapEquals(parsed("block:4+dilated:1,5+padding:12"),
                     [](int i, int j) { return (block(4)(i, j) || dilated(1, 5)(i, j)) && j < 12; }, n, n);
  expectBitmapEquals(parsed("block:3+causal"), [](int i, int j) { return block(3)(i, j) && causal(i, j); }, n, n);
  // Mask::operator+ composes like the spec text.
  EXPECT_EQ((parsed("window:2") + Mask::causal()).bitmap(n, n), parsed("causal+window:2").bitmap(n, n));
}

TEST(Mask, RandomIsSeededAndKeepsAboutP) {
  const int n = 200;
  const auto a = parsed("random:0.3,7").bitmap(n, n);
  EXPECT_EQ(a, parsed("random:0.3,7").bitmap(n, n));
  EXPECT_NE(a, parsed("random:0.3,8").bitmap(n, n));
  double kept = 0;
  for (uint8_t v : a) kept += v;
  // 40000 Bernoulli(0.3) cells: sd = sqrt(0.21 / 40000) = 0.0023; allow 5 sd.
  EXPECT_NEAR(kept / a.size(), 0.3, 0.0115);
  for (uint8_t v : parsed("random:0,7").bitmap(20, 20)) EXPECT_EQ(v, 0);
  for (uint8_t v : parsed("random:1,7").bitmap(20, 20)) EXPECT_EQ(v, 1);
  // A cell's value does not depend on the size asked for (procedural).
  const auto small = parsed("random:0.3,7").bitmap(10, 10);
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 10; ++j) EXPECT_EQ(small[i * 10 + j], a[i * n + j]);
}

TEST(Mask, SpecRoundTrips) {
  for (std::string s : {"none", "causal", "padding", "padding:4", "window:3", "dilated:2,3", "global:0,5",
                        "block:16", "random:0.25,42", "custom", "causal+window:4", "global:0,5+window:2+padding"})
    EXPECT_EQ(parsed(s).spec(), s);
  EXPECT_EQ(parsed(" causal + window:4 ").spec(), "causal+window:4");
  EXPECT_EQ(parsed("global:5,0,5").spec(), "global:0,5");
}

TEST(Mask, BadSpecsNameTheSpecAndTheFault) {
  EXPECT_NE(parseError("window:0").find("window must be at least 1 (got 0)"), std::string::npos);
  EXPECT_NE(parseError("causal+window:-3").find("mask 'causal+window:-3'"), std::string::npos);
  EXPECT_NE(parseError("windo:3").find("unknown mask 'windo'"), std::string::npos);
  EXPECT_NE(parseError("window").find("expected window:W"), std::string::npos);
  EXPECT_NE(parseError("window:abc").find("'abc' is not an integer"), std::string::npos);
  EXPECT_NE(parseError("dilated:2").find("expected dilated:W,D"), std::string::npos);
  EXPECT_NE(parseError("dilated:2,0").find("dilation must be at least 1"), std::string::npos);
  EXPECT_NE(parseError("block:0").find("block size must be at least 1"), std::string::npos);
  EXPECT_NE(parseError("global:").find("at least one index"), std::string::npos);
  EXPECT_NE(parseError("global:1,x").find("'x' is not an integer"), std::string::npos);
  EXPECT_NE(parseError("random:1.5,3").find("not a number in [0, 1]"), std::string::npos);
  EXPECT_NE(parseError("random:0.5").find("expected random:P,SEED"), std::string::npos);
  EXPECT_NE(parseError("causal:3").find("takes no parameters"), std::string::npos);
  EXPECT_NE(parseError("causal++window:2").find("empty term"), std::string::npos);
  EXPECT_NE(parseError("none+causal").find("cannot be combined"), std::string::npos);
  EXPECT_NE(parseError("window:99999999999999").find("too large"), std::string::npos);
}

TEST(Mask, ValidateChecksSizes) {
  auto st = parsed("global:0,9").validate(5, 5);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "mask 'global:0,9': global index 9 is past the sequence (5 query, 5 key positions)");
  EXPECT_TRUE(parsed("global:0,9").validate(10, 10).ok());
  EXPECT_FALSE(parsed("padding:6").validate(4, 5).ok());
  EXPECT_FALSE(parsed("custom").validate(3, 3).ok());  // no bitmap given
  EXPECT_FALSE(parsed("causal").validate(0, 3).ok());
}

TEST(Mask, CustomBitmapAndItsShape) {
  const std::vector<uint8_t> keep = {1, 0, 1, 0, 1, 1};  // [2, 3]
  const Mask m = Mask::custom(keep, 2, 3);
  EXPECT_TRUE(m.validate(2, 3).ok());
  EXPECT_EQ(m.bitmap(2, 3), keep);
  auto st = m.validate(3, 3);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("custom mask has shape [2, 3] but attention is [3, 3]"), std::string::npos);
  EXPECT_FALSE(Mask::custom({1, 1, 1}, 2, 3).validate(2, 3).ok());  // too few values

  // A parsed "custom" placeholder takes the bitmap; composition still applies.
  const Mask spec = parsed("causal+custom");
  EXPECT_TRUE(spec.needsCustomData());
  const Mask filled = spec.withCustom({1, 1, 1, 1, 0, 1, 1, 1, 1}, 3, 3);
  EXPECT_FALSE(filled.needsCustomData());
  EXPECT_EQ(filled.bitmap(3, 3), (std::vector<uint8_t>{1, 0, 0, 1, 0, 0, 1, 1, 1}));
  EXPECT_EQ(parsed("window:1").withCustom({0, 0, 0, 0, 0, 0, 1, 0, 0}, 3, 3).bitmap(3, 3),
            (std::vector<uint8_t>{1, 1, 0, 1, 1, 1, 1, 1, 1}));
}

TEST(Mask, PaddingReadsPadTokensOnceBound) {
  const std::vector<std::string> keys = {"the", "cat", "[PAD]", "sat", "<pad>", "<PAD>"};
  auto bound = parsed("padding").bind(3, 6, keys);
  ASSERT_TRUE(bound.ok()) << bound.error().message;
  EXPECT_EQ(bound->bitmap(1, 6), (std::vector<uint8_t>{1, 1, 0, 1, 0, 0}));
  auto withCausal = parsed("causal+padding").bind(6, 6, keys);
  ASSERT_TRUE(withCausal.ok());
  expectBitmapEquals(*withCausal, [](int i, int j) { return j <= i && j != 2 && j != 4 && j != 5; }, 6, 6);
  // No tokens: a clear error that names the way out.
  auto none = parsed("padding").bind(3, 6, {});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("use padding:LEN"), std::string::npos);
  EXPECT_FALSE(parsed("padding").bind(3, 6, {"a", "b"}).ok());
  // Explicit lengths need no tokens.
  EXPECT_TRUE(parsed("padding:4").bind(3, 6, {}).ok());
}

// blockState must agree with the cells: AllMasked/AllAllowed are promises; for
// single families (except random) Mixed must be truly mixed (exact).
void checkBlocks(const Mask& m, int nq, int nk, bool exact) {
  const auto b = m.bitmap(nq, nk);
  for (int i0 = 0; i0 < nq; ++i0)
    for (int i1 = i0 + 1; i1 <= nq; ++i1)
      for (int j0 = 0; j0 < nk; ++j0)
        for (int j1 = j0 + 1; j1 <= nk; ++j1) {
          int kept = 0;
          for (int i = i0; i < i1; ++i)
            for (int j = j0; j < j1; ++j) kept += b[static_cast<size_t>(i) * nk + j];
          const int cells = (i1 - i0) * (j1 - j0);
          const BlockState s = m.blockState(i0, i1, j0, j1);
          const auto where = [&] {
            return m.spec() + " block [" + std::to_string(i0) + "," + std::to_string(i1) + ") x [" +
                   std::to_string(j0) + "," + std::to_string(j1) + ")";
          };
          if (s == BlockState::AllMasked) { ASSERT_EQ(kept, 0) << where(); }
          if (s == BlockState::AllAllowed) { ASSERT_EQ(kept, cells) << where(); }
          if (exact && s == BlockState::Mixed) { ASSERT_TRUE(kept > 0 && kept < cells) << where(); }
        }
}

TEST(MaskBlockState, ExactForEachFamily) {
  for (auto [nq, nk] : {std::pair{11, 11}, {7, 10}}) {
    for (const char* s : {"none", "causal", "padding:6", "window:2", "dilated:2,3", "dilated:3,1", "global:0,4",
                          "block:3", "random:0,1", "random:1,1"})
      checkBlocks(parsed(s), nq, nk, true);
    checkBlocks(Mask::custom(parsed("random:0.5,3").bitmap(nq, nk), nq, nk), nq, nk, true);
  }
  auto pad = parsed("padding").bind(8, 8, {"a", "b", "[PAD]", "c", "d", "e", "[PAD]", "[PAD]"});
  ASSERT_TRUE(pad.ok());
  checkBlocks(*pad, 8, 8, true);
}

TEST(MaskBlockState, SoundForCompositions) {
  for (const char* s : {"causal+window:3", "global:0,5+window:2", "window:1+global:0+random:0.2,9",
                        "causal+padding:9", "block:4+dilated:1,5+padding:10", "random:0.3,4+causal"})
    checkBlocks(parsed(s), 12, 12, false);
  // Restrictions are exact when combined with each other and with one pattern.
  checkBlocks(parsed("causal+padding:9"), 12, 12, true);
  checkBlocks(parsed("causal+block:4"), 12, 12, false);
  EXPECT_EQ(parsed("causal+window:2").blockState(0, 4, 8, 12), BlockState::AllMasked);
  EXPECT_EQ(parsed("causal+window:2").blockState(8, 12, 0, 4), BlockState::AllMasked);
  EXPECT_EQ(parsed("causal").blockState(8, 12, 0, 4), BlockState::AllAllowed);
}

TEST(MaskFamilies, ListEveryFamilyAndTheirExamplesParse) {
  std::set<std::string> names;
  for (const auto& f : maskFamilies()) {
    names.insert(f.name);
    EXPECT_FALSE(f.title.empty());
    EXPECT_FALSE(f.description.empty());
    if (f.name == "custom") continue;  // its bitmap comes from a file
    auto m = Mask::parse(f.example);
    ASSERT_TRUE(m.ok()) << f.example;
    EXPECT_TRUE(m->validate(20, 20).ok()) << f.example;
    // The family's parameters, filled with their defaults, make a valid spec.
    std::string spec = f.name;
    std::string args;
    for (const auto& p : f.params)
      if (!p.defaultValue.empty()) args += (args.empty() ? "" : ",") + p.defaultValue;
    if (!args.empty()) spec += ":" + args;
    EXPECT_TRUE(Mask::parse(spec).ok()) << spec;
    EXPECT_EQ(f.restricts, f.name == "causal" || f.name == "padding") << f.name;
  }
  EXPECT_EQ(names, (std::set<std::string>{"none", "causal", "padding", "window", "dilated", "global", "block",
                                          "random", "custom", "window2d"}));
}

}  // namespace
}  // namespace attn
