// Head-type scores and labels: against numpy on constructed maps
// (tests/scripts/gen_head_type_fixtures.py), a hand-computed map, the label
// thresholds at their edges and the precedence, and bad maps and ranges.
#include "attn/analysis/head_types.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>

#include "attn/io/npy_reader.h"

namespace attn {
namespace {

const HeadType kFixtureLabels[] = {HeadType::PreviousToken, HeadType::Induction, HeadType::Duplicate,
                                   HeadType::Sink,          HeadType::Self,      HeadType::Local,
                                   HeadType::Broad};

TEST(HeadTypes, MatchNumpyOnConstructedMaps) {
  auto arrays = readNpzFile(std::string(ATTN_FIXTURE_DIR) + "/metrics/head_types.npz");
  ASSERT_TRUE(arrays.ok()) << arrays.error().message;
  std::map<std::string, Tensor> f;
  for (auto& a : *arrays) f[a.name] = a.values;
  const int period = static_cast<int>(f["period"].data.at(0));
  const Tensor& maps = f["maps"];
  ASSERT_EQ(maps.shape.size(), 3u);
  const int n = static_cast<int>(maps.shape[1]);
  ASSERT_EQ(n, 1 + 2 * period);
  const Tensor& expected = f["expected"];
  std::map<HeadType, int> seen;
  for (int64_t m = 0; m < maps.shape[0]; ++m) {
    SCOPED_TRACE("map " + std::to_string(m));
    const Mat map = maps.slice2d(m);
    const HeadTypeScores s = headTypeScores(map, period, secondCopyRows(n, period));
    const float* e = expected.data.data() + m * 6;
    EXPECT_NEAR(s.previousToken, e[0], 1e-5);
    EXPECT_NEAR(s.induction, e[1], 1e-5);
    EXPECT_NEAR(s.duplicate, e[2], 1e-5);
    EXPECT_NEAR(s.sink, e[3], 1e-5);
    EXPECT_NEAR(s.self, e[4], 1e-5);
    EXPECT_NEAR(s.local, e[5], 1e-5);
    // The two-argument forms default to the second copy too.
    EXPECT_FLOAT_EQ(inductionScore(map, period), s.induction);
    EXPECT_FLOAT_EQ(duplicateTokenScore(map, period), s.duplicate);
    const HeadType label = kFixtureLabels[static_cast<int>(f["labels"].data.at(static_cast<size_t>(m)))];
    EXPECT_EQ(classifyHead(s), label) << headTypeName(classifyHead(s)) << " vs " << headTypeName(label);
    ++seen[label];
  }
  // The fixture exercises every label.
  EXPECT_EQ(seen.size(), 7u);
}

TEST(HeadTypes, HandComputedMap) {
  // BOS + two copies of 2 tokens: positions 0 | 1 2 | 3 4; the second copy is rows 3, 4.
  Mat a = Mat::Zero(5, 5);
  a(0, 0) = 1;
  a.row(1) << 0.5f, 0.5f, 0, 0, 0;
  a.row(2) << 0.2f, 0.7f, 0.1f, 0, 0;
  a.row(3) << 0.1f, 0.2f, 0.6f, 0.1f, 0;     // 3 - 2 + 1 = 2: induction 0.6; 3 - 2 = 1: duplicate 0.2
  a.row(4) << 0.3f, 0.1f, 0.2f, 0.3f, 0.1f;  // induction key 3: 0.3, duplicate key 2: 0.2
  const RowRange rows = secondCopyRows(5, 2);
  EXPECT_EQ(rows.begin, 3);
  EXPECT_EQ(rows.end, 5);
  EXPECT_NEAR(inductionScore(a, 2, rows), (0.6 + 0.3) / 2, 1e-6);
  EXPECT_NEAR(duplicateTokenScore(a, 2, rows), (0.2 + 0.2) / 2, 1e-6);
  EXPECT_NEAR(previousTokenScore(a, rows), (0.6 + 0.3) / 2, 1e-6);
  EXPECT_NEAR(sinkScore(a, rows), (0.1 + 0.3) / 2, 1e-6);
  EXPECT_NEAR(selfScore(a, rows), (0.1 + 0.1) / 2, 1e-6);
  // Window 1: keys 2..4 of row 3, 3..4 of row 4.
  EXPECT_NEAR(localShare(a, rows, 1), (0.7 + 0.4) / 2, 1e-6);
  EXPECT_NEAR(localShare(a, rows, 0), selfScore(a, rows), 1e-6);
  // Default rows: previous-token over rows 1..4, sink and self over every row.
  EXPECT_NEAR(previousTokenScore(a), (0.5 + 0.7 + 0.6 + 0.3) / 4, 1e-6);
  EXPECT_NEAR(sinkScore(a), (1 + 0.5 + 0.2 + 0.1 + 0.3) / 5, 1e-6);
  EXPECT_NEAR(selfScore(a), (1 + 0.5 + 0.1 + 0.1 + 0.1) / 5, 1e-6);
}

TEST(HeadTypes, ThresholdEdgesAndPrecedence) {
  const HeadTypeThresholds t;
  HeadTypeScores s;
  EXPECT_EQ(classifyHead(s), HeadType::Broad);
  s.local = t.local;  // at the threshold counts
  EXPECT_EQ(classifyHead(s), HeadType::Local);
  s.local = std::nextafter(t.local, 0.0f);
  EXPECT_EQ(classifyHead(s), HeadType::Broad);
  s.self = t.self;
  EXPECT_EQ(classifyHead(s), HeadType::Self);
  s.sink = t.sink;
  EXPECT_EQ(classifyHead(s), HeadType::Sink);
  s.previousToken = t.previousToken;
  EXPECT_EQ(classifyHead(s), HeadType::PreviousToken);
  s.duplicate = t.duplicate;
  EXPECT_EQ(classifyHead(s), HeadType::Duplicate);
  s.induction = std::nextafter(t.induction, 0.0f);
  EXPECT_EQ(classifyHead(s), HeadType::Duplicate);
  s.induction = t.induction;
  EXPECT_EQ(classifyHead(s), HeadType::Induction);
  // Thresholds are the caller's to change.
  HeadTypeThresholds strict;
  strict.induction = 0.9f;
  EXPECT_EQ(classifyHead(s, strict), HeadType::Duplicate);
  EXPECT_EQ(headTypeName(HeadType::PreviousToken), "previous-token");
  EXPECT_EQ(headTypeName(HeadType::Broad), "broad");
}

TEST(HeadTypes, BadMapsAndRangesGiveFiniteScores) {
  Mat a = Mat::Constant(4, 4, 0.25f);
  a(3, 2) = std::numeric_limits<float>::quiet_NaN();
  a(3, 3) = std::numeric_limits<float>::infinity();
  // Non-finite weights count as 0.
  EXPECT_NEAR(previousTokenScore(a, {3, 4}), 0.0, 1e-7);
  EXPECT_NEAR(localShare(a, {3, 4}, 3), 0.5, 1e-6);
  // Periods past the map or below 1, empty and reversed ranges: 0, not NaN.
  EXPECT_EQ(inductionScore(a, 0), 0.0f);
  EXPECT_EQ(duplicateTokenScore(a, -3), 0.0f);
  EXPECT_EQ(duplicateTokenScore(a, 10, {0, 4}), 0.0f);
  EXPECT_EQ(sinkScore(a, {3, 1}), 0.0f);
  EXPECT_EQ(localShare(a, {9, 12}), 0.0f);
  EXPECT_EQ(selfScore(Mat(0, 0)), 0.0f);
  const HeadTypeScores s = headTypeScores(Mat(0, 0), 2, {0, -1});
  EXPECT_EQ(s.local, 0.0f);
  // A non-square map (queries past the keys): keys outside are skipped, not read.
  Mat wide = Mat::Constant(6, 3, 1.0f / 3);
  EXPECT_NEAR(selfScore(wide), 1.0 / 3, 1e-6);
  EXPECT_EQ(secondCopyRows(3, 5).begin, 0);
  EXPECT_EQ(secondCopyRows(3, 0).end, 0);
}

}  // namespace
}  // namespace attn
