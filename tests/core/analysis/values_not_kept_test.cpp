// An .npz's 'v' read and checked but not kept (LoadOptions::keepValues = false,
// `metrics` never reads the values, a third of a q/k/v file): the
// same q and k, v's shape kept, the same error as a full load for every bad or
// truncated file, and the same streamed analysis; runAttention refuses it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "attn/analysis/streamed_analysis.h"
#include "attn/io/input_file.h"
#include "attn/io/npz_stream.h"
#include "seeded_tensor.h"

namespace attn {
namespace dropped_values_test {

namespace fs = std::filesystem;

struct Qkv {
  Tensor q, k, v;
};

Qkv randomQkv(int heads, int n, int dk, int dv) {
  return {test::seededNormalTensor({heads, n, dk}, 1), test::seededNormalTensor({heads, n, dk}, 2),
          test::seededNormalTensor({heads, n, dv}, 3)};
}

std::string writeNpz(const std::string& name, const Qkv& a) {
  const std::string path = (fs::temp_directory_path() / fmt::format("attn_dropped_{}_{}.npz", name, getpid())).string();
  NpzStreamWriter w;
  EXPECT_TRUE(w.open(path).ok());
  EXPECT_TRUE(w.addFloat("q", a.q).ok());
  EXPECT_TRUE(w.addFloat("k", a.k).ok());
  EXPECT_TRUE(w.addFloat("v", a.v).ok());
  EXPECT_TRUE(w.commit().ok());
  return path;
}

std::string errorOf(const Result<LoadedInput>& r) { return r ? std::string("(loaded)") : r.error().message; }

TEST(DroppedValues, SameQueriesAndKeysAndTheValuesShape) {
  const std::string path = writeNpz("shape", randomQkv(3, 40, 8, 5));
  auto full = loadInputFile(path);
  auto lean = loadInputFile(path, {.keepValues = false});
  ASSERT_TRUE(full) << full.error().message;
  ASSERT_TRUE(lean) << lean.error().message;
  EXPECT_FALSE(full->input.valuesDropped());
  EXPECT_TRUE(lean->input.valuesDropped());
  EXPECT_TRUE(lean->input.v.empty());
  EXPECT_EQ(lean->input.droppedV.heads, 3u);
  EXPECT_EQ(lean->input.droppedV.rows, 40);
  EXPECT_EQ(lean->input.droppedV.cols, 5);
  ASSERT_EQ(lean->input.q.size(), 3u);
  for (size_t h = 0; h < 3; ++h) {
    EXPECT_EQ(lean->input.q[h], full->input.q[h]);
    EXPECT_EQ(lean->input.k[h], full->input.k[h]);
  }
  ASSERT_EQ(lean->arrays.size(), full->arrays.size());
  for (size_t i = 0; i < full->arrays.size(); ++i) EXPECT_EQ(lean->arrays[i].role, full->arrays[i].role);
  EXPECT_TRUE(lean->hasEngineInput());
  fs::remove(path);
}

TEST(DroppedValues, StreamedAnalysisEqualsTheFullLoadsAndRunAttentionRefuses) {
  const std::string path = writeNpz("analysis", randomQkv(2, 300, 16, 16));
  auto full = loadInputFile(path);
  auto lean = loadInputFile(path, {.keepValues = false});
  ASSERT_TRUE(full && lean);
  AttentionSpec spec;
  spec.heads = 2;
  spec.dK = 16;
  spec.exec = ExecPath::Tiled;
  ASSERT_TRUE(fitSpecToInput(full->input, spec).ok());
  auto a = analyzeAttentionStreamed(full->input, spec, {});
  auto b = analyzeAttentionStreamed(std::move(lean->input), spec, {});
  ASSERT_TRUE(a) << a.error().message;
  ASSERT_TRUE(b) << b.error().message;
  ASSERT_EQ(a->analysis.heads.size(), b->analysis.heads.size());
  for (size_t h = 0; h < a->analysis.heads.size(); ++h) {
    EXPECT_EQ(a->analysis.heads[h].perRow.entropy, b->analysis.heads[h].perRow.entropy);
    EXPECT_EQ(a->analysis.heads[h].perRow.coverageK, b->analysis.heads[h].perRow.coverageK);
    EXPECT_EQ(a->analysis.heads[h].meanDistance, b->analysis.heads[h].meanDistance);
  }
  EXPECT_EQ(a->analysis.headDivergence, b->analysis.headDivergence);

  auto again = loadInputFile(path, {.keepValues = false});
  ASSERT_TRUE(again);
  auto run = runAttention(again->input, spec);
  ASSERT_FALSE(run);
  EXPECT_NE(run.error().message.find("'v'"), std::string::npos) << run.error().message;
  fs::remove(path);
}

TEST(DroppedValues, BadValuesGiveTheFullLoadsError) {
  Qkv nan = randomQkv(2, 6, 4, 3);
  nan.v.data[1 * 6 * 3 + 4] = std::numeric_limits<float>::quiet_NaN();  // head 1, flat index 22
  Qkv inf = randomQkv(2, 6, 4, 3);
  inf.v.data[2] = -std::numeric_limits<float>::infinity();
  inf.q.data[30] = std::numeric_limits<float>::infinity();  // q's error comes first, as before
  Qkv keys = randomQkv(2, 6, 4, 3);
  keys.v = test::seededNormalTensor({2, 5, 3}, 9);  // one key short
  Qkv heads = randomQkv(2, 6, 4, 3);
  heads.v = test::seededNormalTensor({3, 6, 3}, 9);
  Qkv flat = randomQkv(2, 6, 4, 3);
  flat.v = test::seededNormalTensor({36}, 9);  // 1-D: decoded as usual and refused by rank
  int i = 0;
  for (const Qkv* c : {&nan, &inf, &keys, &heads, &flat}) {
    const std::string path = writeNpz(fmt::format("bad{}", i++), *c);
    const std::string want = errorOf(loadInputFile(path));
    EXPECT_NE(want, "(loaded)");
    EXPECT_EQ(errorOf(loadInputFile(path, {.keepValues = false})), want);
    fs::remove(path);
  }
}

TEST(DroppedValues, EveryTruncationGivesTheFullLoadsError) {
  const std::string path = writeNpz("whole", randomQkv(2, 5, 3, 2));
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = path + ".cut.npz";
  for (size_t n = 0; n < bytes.size(); n += 7) {
    std::ofstream(cut, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(n));
    const std::string want = errorOf(loadInputFile(cut));
    EXPECT_EQ(errorOf(loadInputFile(cut, {.keepValues = false})), want) << n << " bytes";
  }
  fs::remove(cut);
  fs::remove(path);
}

}  // namespace dropped_values_test
}  // namespace attn
