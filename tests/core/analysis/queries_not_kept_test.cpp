// An .npz's 'q' read and checked but not kept (LoadOptions::keepQueries =
// false, at N = 32768 q alone is 100 MB): the streamed analysis reads
// its rows back from the file a block at a time and gives exactly the analysis
// of the input held in memory; a file load gives the same errors; only stored
// float32 queries are dropped; what cannot use them as they are refuses.
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
namespace dropped_queries_test {

namespace fs = std::filesystem;

std::string writeQkv(const std::string& name, const Tensor& q, const Tensor& k, const Tensor& v,
                     NpyFloat qType = NpyFloat::F32) {
  const std::string path = (fs::temp_directory_path() / fmt::format("attn_noq_{}_{}.npz", name, getpid())).string();
  NpzStreamWriter w;
  EXPECT_TRUE(w.open(path).ok());
  EXPECT_TRUE(w.addFloat("v", v).ok());  // q last: its offset is not the first member's
  EXPECT_TRUE(w.addFloat("k", k).ok());
  EXPECT_TRUE(w.addFloat("q", q, qType).ok());
  EXPECT_TRUE(w.commit().ok());
  return path;
}

std::string writeRandom(const std::string& name, int heads, int n, int dk) {
  return writeQkv(name, test::seededNormalTensor({heads, n, dk}, 11), test::seededNormalTensor({heads, n, dk}, 12),
                  test::seededNormalTensor({heads, n, dk}, 13));
}

std::string loadError(const Result<LoadedInput>& r) { return r ? std::string("(loaded)") : r.error().message; }

constexpr LoadOptions kLean{.keepValues = false, .keepQueries = false};

TEST(DroppedQueries, OnlyTheirShapeAndWhereTheyLieAreKept) {
  const std::string path = writeRandom("shape", 3, 40, 8);
  auto full = loadInputFile(path);
  auto lean = loadInputFile(path, kLean);
  ASSERT_TRUE(full) << full.error().message;
  ASSERT_TRUE(lean) << lean.error().message;
  EXPECT_FALSE(full->input.queriesDropped());
  ASSERT_TRUE(lean->input.queriesDropped());
  EXPECT_EQ(lean->input.droppedQ.heads, 3u);
  EXPECT_EQ(lean->input.droppedQ.rows, 40);
  EXPECT_EQ(lean->input.droppedQ.cols, 8);
  EXPECT_EQ(lean->input.queryRows(), 40);
  ASSERT_EQ(lean->input.q.size(), 3u);
  for (size_t h = 0; h < 3; ++h) {
    EXPECT_EQ(lean->input.q[h].rows(), 0);
    EXPECT_EQ(lean->input.q[h].cols(), 8);
    EXPECT_EQ(lean->input.k[h], full->input.k[h]);
  }
  EXPECT_EQ(lean->input.queryFile.path, path);
  // The recorded offset holds q's first values, as the file says.
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(lean->input.queryFile.offset));
  float first[2];
  in.read(reinterpret_cast<char*>(first), sizeof first);
  EXPECT_EQ(first[0], full->input.q[0](0, 0));
  EXPECT_EQ(first[1], full->input.q[0](0, 1));
  EXPECT_TRUE(lean->hasEngineInput());
  fs::remove(path);
}

void expectIdentical(const Analysis& a, const Analysis& b) {
  ASSERT_EQ(a.heads.size(), b.heads.size());
  for (size_t h = 0; h < a.heads.size(); ++h) {
    const auto &x = a.heads[h].perRow, &y = b.heads[h].perRow;
    EXPECT_EQ(x.entropy, y.entropy);
    EXPECT_EQ(x.maxWeight, y.maxWeight);
    EXPECT_EQ(x.maxMinRatio, y.maxMinRatio);
    EXPECT_EQ(x.meanDistance, y.meanDistance);
    EXPECT_EQ(x.coverageK, y.coverageK);
    EXPECT_EQ(x.keptKeys, y.keptKeys);
    EXPECT_EQ(a.heads[h].offsets.mass, b.heads[h].offsets.mass);
    EXPECT_EQ(a.heads[h].emptyRows, b.heads[h].emptyRows);
  }
  EXPECT_EQ(a.headDivergence, b.headDivergence);
  EXPECT_EQ(a.divergenceInfo.sampled, b.divergenceInfo.sampled);
}

TEST(DroppedQueries, StreamedAnalysisFromTheFileEqualsTheOneFromMemory) {
  const std::string path = writeRandom("analysis", 3, 300, 16);
  for (const char* maskSpec : {"none", "causal", "padding:250"}) {
    for (bool sampled : {false, true}) {  // sampled: scattered rows of every head, read row by row
      SCOPED_TRACE(std::string(maskSpec) + (sampled ? " sampled" : " exact"));
      auto full = loadInputFile(path);
      auto lean = loadInputFile(path, kLean);
      ASSERT_TRUE(full && lean);
      AttentionSpec spec;
      spec.exec = ExecPath::Tiled;
      spec.mask = *Mask::parse(maskSpec);
      ASSERT_TRUE(fitSpecToInput(full->input, spec).ok());
      AnalysisOptions opt;
      if (sampled) {
        opt.divergence.mode = DivergenceOptions::Mode::Sampled;
        opt.divergence.sampleRows = 77;
      }
      auto a = analyzeAttentionStreamed(full->input, spec, opt);
      auto b = analyzeAttentionStreamed(std::move(lean->input), spec, opt);
      ASSERT_TRUE(a) << a.error().message;
      ASSERT_TRUE(b) << b.error().message;
      EXPECT_EQ(b->nq, 300);
      EXPECT_EQ(a->queryTokens, b->queryTokens);
      EXPECT_EQ(a->warnings, b->warnings);
      expectIdentical(a->analysis, b->analysis);
    }
  }
  fs::remove(path);
}

TEST(DroppedQueries, WhatCannotUseThemAsTheyAreRefuses) {
  const std::string path = writeRandom("refuse", 2, 30, 4);
  AttentionSpec spec;
  spec.exec = ExecPath::Tiled;
  auto lean = loadInputFile(path, {.keepQueries = false});  // values kept: the refusal is about 'q'
  ASSERT_TRUE(lean);
  ASSERT_TRUE(lean->input.queriesDropped());
  ASSERT_TRUE(fitSpecToInput(lean->input, spec).ok());
  auto run = runAttention(lean->input, spec);
  ASSERT_FALSE(run);
  EXPECT_NE(run.error().message.find("'q'"), std::string::npos) << run.error().message;
  AttentionSpec cosine = spec;
  cosine.mechanism = Mechanism::Cosine;
  auto c = analyzeAttentionStreamed(lean->input, cosine, {});
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("cosine"), std::string::npos) << c.error().message;
  AttentionSpec rope = spec;
  rope.positional = PositionalEncoding::Rope;
  auto r = analyzeAttentionStreamed(lean->input, rope, {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("RoPE"), std::string::npos) << r.error().message;
  fs::remove(path);
}

TEST(DroppedQueries, HalfPrecisionQueriesAreKept) {
  const std::string path = writeQkv("half", test::seededNormalTensor({2, 20, 4}, 1),
                                    test::seededNormalTensor({2, 20, 4}, 2),
                                    test::seededNormalTensor({2, 20, 4}, 3), NpyFloat::F16);
  auto full = loadInputFile(path);
  auto lean = loadInputFile(path, kLean);
  ASSERT_TRUE(full && lean);
  EXPECT_FALSE(lean->input.queriesDropped());
  for (size_t h = 0; h < 2; ++h) EXPECT_EQ(lean->input.q[h], full->input.q[h]);
  fs::remove(path);
}

TEST(DroppedQueries, BadFilesGiveTheFullLoadsError) {
  Tensor q = test::seededNormalTensor({2, 6, 4}, 1), k = test::seededNormalTensor({2, 6, 4}, 2),
         v = test::seededNormalTensor({2, 6, 4}, 3);
  Tensor nanQ = q;
  nanQ.data[1 * 24 + 5] = std::numeric_limits<float>::quiet_NaN();
  Tensor narrowQ = test::seededNormalTensor({2, 6, 3}, 4);
  Tensor headsQ = test::seededNormalTensor({3, 6, 4}, 5);
  int i = 0;
  for (const Tensor* bad : {&nanQ, &narrowQ, &headsQ}) {
    const std::string path = writeQkv(fmt::format("bad{}", i++), *bad, k, v);
    const std::string want = loadError(loadInputFile(path));
    EXPECT_NE(want, "(loaded)");
    EXPECT_EQ(loadError(loadInputFile(path, kLean)), want);
    fs::remove(path);
  }
  const std::string path = writeQkv("whole", q, k, v);
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = path + ".cut.npz";
  for (size_t n = 0; n < bytes.size(); n += 7) {
    std::ofstream(cut, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(n));
    EXPECT_EQ(loadError(loadInputFile(cut, kLean)), loadError(loadInputFile(cut))) << n << " bytes";
  }
  fs::remove(cut);
  fs::remove(path);
}

TEST(DroppedQueries, AFileChangedAfterTheLoadIsAnErrorNotANumber) {
  const std::string path = writeRandom("changed", 2, 50, 4);
  auto lean = loadInputFile(path, kLean);
  ASSERT_TRUE(lean);
  {  // a NaN where head 1's row 7 lies
    std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(lean->input.queryFile.offset + 4 * (50 * 4 + 7 * 4)));
    const float nan = std::numeric_limits<float>::quiet_NaN();
    f.write(reinterpret_cast<const char*>(&nan), sizeof nan);
  }
  AttentionSpec spec;
  spec.exec = ExecPath::Tiled;
  ASSERT_TRUE(fitSpecToInput(lean->input, spec).ok());
  auto s = analyzeAttentionStreamed(std::move(lean->input), spec, {});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("changed"), std::string::npos) << s.error().message;
  fs::remove(path);
}

}  // namespace dropped_queries_test
}  // namespace attn
