// A text longer than the model's context read through a sliding window
// (streamed/windowed_run.h): the windows' plan checked by hand, and every row's
// measures against a streamed run of the window that measured it on its own.
#include "attn/models/streamed/windowed_run.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "attn/models/model.h"
#include "model_fixtures.h"

namespace attn::models {
namespace {

using attn::test::modelDir;

std::vector<std::tuple<int, int, int>> plan(int n, int window, int stride) {
  auto w = slidingWindows(n, window, stride);
  EXPECT_TRUE(w.ok()) << w.error().message;
  std::vector<std::tuple<int, int, int>> out;
  if (w)
    for (const auto& t : *w) out.emplace_back(t.start, t.length, t.firstRow);
  return out;
}

TEST(SlidingWindows, EveryRowOnceWithTheMostContextBeforeIt) {
  using T = std::vector<std::tuple<int, int, int>>;
  // 200 tokens, 64 every 32: the last window ends at 200, measuring only rows 192..199.
  EXPECT_EQ(plan(200, 64, 32),
            (T{{0, 64, 0}, {32, 64, 32}, {64, 64, 32}, {96, 64, 32}, {128, 64, 32}, {136, 64, 56}}));
  EXPECT_EQ(plan(10, 64, 32), (T{{0, 10, 0}}));  // shorter than the window: one window
  EXPECT_EQ(plan(64, 64, 32), (T{{0, 64, 0}}));
  EXPECT_EQ(plan(100, 50, 50), (T{{0, 50, 0}, {50, 50, 0}}));  // no overlap
  EXPECT_EQ(plan(101, 50, 50), (T{{0, 50, 0}, {50, 50, 0}, {51, 50, 49}}));
  EXPECT_EQ(plan(5, 4, 1), (T{{0, 4, 0}, {1, 4, 3}}));
  EXPECT_FALSE(slidingWindows(100, 1, 1).ok());
  EXPECT_FALSE(slidingWindows(100, 10, 0).ok());
  EXPECT_FALSE(slidingWindows(100, 10, 11).ok());
}

TEST(WindowedRun, EachRowEqualsAStreamedRunOfItsWindow) {
  auto model = Model::open(modelDir("gpt2"));  // n_positions 64
  ASSERT_TRUE(model.ok()) << model.error().message;
  const Model& m = **model;
  std::string text;
  for (int i = 0; i < 12; ++i)
    text += fmt::format("The quick brown fox {} jumps over the lazy dog, again. ", i);
  auto enc = m.encode(text, std::nullopt, "text", 0);
  ASSERT_TRUE(enc.ok()) << enc.error().message;
  const int n = enc->size(), window = 64, stride = 24;
  ASSERT_GT(n, 2 * window);
  RunOptions opt;
  std::vector<std::string> stages;
  auto got = runWindowed(m, *enc, window, stride, opt, [&](double, std::string_view s) {
    stages.emplace_back(s);
    return true;
  });
  ASSERT_TRUE(got.ok()) << got.error().message;
  ASSERT_EQ(got->streamedLayers.size(), static_cast<size_t>(m.info().layers));
  EXPECT_EQ(got->encoding.size(), n);
  auto windows = slidingWindows(n, window, stride);
  ASSERT_TRUE(windows.ok());
  EXPECT_EQ(stages.back().rfind(fmt::format("window {} of {}", windows->size(), windows->size()), 0), 0u)
      << stages.back();
  RunOptions plain;
  plain.streamed = true;
  plain.keepStreamedQk = false;
  plain.topK = 0;
  int measured = 0;
  for (const TextWindow& w : *windows) {
    auto ref = m.run(sliceEncoding(*enc, w.start, w.length), plain);
    ASSERT_TRUE(ref.ok()) << ref.error().message;
    for (size_t l = 0; l < got->streamedLayers.size(); ++l)
      for (size_t h = 0; h < got->streamedLayers[l].heads.size(); ++h) {
        const auto& a = got->streamedLayers[l].heads[h].perRow;
        const auto& b = ref->streamedLayers[l].heads[h].perRow;
        ASSERT_EQ(a.entropy.size(), n);
        for (int i = w.firstRow; i < w.length; ++i) {
          const int g = w.start + i;
          const std::string at = fmt::format("window at {}, layer {}, head {}, row {}", w.start, l, h, g);
          EXPECT_NEAR(a.entropy[g], b.entropy[i], 1e-5) << at;
          EXPECT_NEAR(a.maxWeight[g], b.maxWeight[i], 1e-6) << at;
          EXPECT_NEAR(a.meanDistance[g], b.meanDistance[i], 1e-4) << at;
          EXPECT_EQ(a.keptKeys[g], b.keptKeys[i]) << at;
          EXPECT_EQ(a.keptKeys[g], i + 1) << at;  // causal within the window
        }
      }
    measured += w.length - w.firstRow;
  }
  EXPECT_EQ(measured, n);  // each row once
  // A text within the window: the plain streamed run's measures.
  const Encoding shortText = sliceEncoding(*enc, 0, 40);
  auto one = runWindowed(m, shortText, window, stride, opt);
  auto ref = m.run(shortText, plain);
  ASSERT_TRUE(one.ok() && ref.ok());
  EXPECT_NEAR(one->streamedLayers[1].heads[0].entropyMean, ref->streamedLayers[1].heads[0].entropyMean, 1e-9);
}

TEST(WindowedRun, RefusesBidirectionalModelsAndStopsOnCancel) {
  auto bert = Model::open(modelDir("bert"));
  ASSERT_TRUE(bert.ok()) << bert.error().message;
  auto benc = (*bert)->encode("a short text", std::nullopt, "text", 0);
  ASSERT_TRUE(benc.ok());
  auto r = runWindowed(**bert, *benc, 8, 4, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("causal models"), std::string::npos) << r.error().message;

  auto gpt2 = Model::open(modelDir("gpt2"));
  ASSERT_TRUE(gpt2.ok());
  auto enc = (*gpt2)->encode("one two three four five six seven eight nine ten eleven twelve", std::nullopt,
                             "text", 0);
  ASSERT_TRUE(enc.ok());
  auto cancelled = runWindowed(**gpt2, *enc, 6, 3, {}, [](double f, std::string_view) { return f < 0.5; });
  ASSERT_FALSE(cancelled.ok());
  EXPECT_NE(cancelled.error().message.find("cancelled"), std::string::npos) << cancelled.error().message;
  EXPECT_NE(cancelled.error().message.find("window"), std::string::npos) << cancelled.error().message;
}

}  // namespace
}  // namespace attn::models
