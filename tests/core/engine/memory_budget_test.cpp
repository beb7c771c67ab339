// The naive path's memory guard: size estimate, budget parsing, refusal text.
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>

#include "attn/attn.h"
#include "attn/engine/memory_budget.h"

namespace attn {
namespace {

TEST(MemoryBudget, EstimateCountsEveryMaterializedMatrix) {
  // Naive: raw, scaled, masked logits and weights per head; a logit bias adds one.
  EXPECT_EQ(materializedMatrices(ExecPath::Naive, 4, -1, false), 16);
  EXPECT_EQ(materializedMatrices(ExecPath::Naive, 4, -1, true), 20);
  // Tiled keeps only the maps asked for (weights + scaled logits): all heads, one head, or none.
  EXPECT_EQ(materializedMatrices(ExecPath::Tiled, 4, -1, false), 8);
  EXPECT_EQ(materializedMatrices(ExecPath::Tiled, 4, 2, false), 2);
  EXPECT_EQ(materializedMatrices(ExecPath::Sparse, 4, -2, false), 0);
  // Approximations run the naive reference and keep their own weights.
  EXPECT_EQ(materializedMatrices(ExecPath::Performer, 2, -1, false), 10);
  EXPECT_EQ(matrixBytes(16, 1000, 1000), int64_t{16} * 1000 * 1000 * 4);
  // Absurd sizes saturate instead of wrapping around to something small.
  EXPECT_EQ(matrixBytes(int64_t{1} << 20, int64_t{1} << 30, int64_t{1} << 30),
            std::numeric_limits<int64_t>::max());
}

TEST(MemoryBudget, ParsesAndFormatsByteSizes) {
  EXPECT_EQ(*parseByteSize("1500000"), 1500000);
  EXPECT_EQ(*parseByteSize("512M"), int64_t{512} << 20);
  EXPECT_EQ(*parseByteSize("2G"), int64_t{2} << 30);
  EXPECT_EQ(*parseByteSize("1.5GiB"), int64_t{3} << 29);
  EXPECT_EQ(*parseByteSize("64kb"), int64_t{64} << 10);
  for (const char* bad : {"", "G", "12X", "-5M", "1.2.3G", "1e400", "99999999999T"}) {
    auto r = parseByteSize(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.error().message.find("byte size"), std::string::npos);
    }
  }
  EXPECT_EQ(formatBytes(800), "800 B");
  EXPECT_EQ(formatBytes(1536), "1.5 KiB");
  EXPECT_EQ(formatBytes(int64_t{3} << 30), "3.0 GiB");
}

TEST(MemoryBudget, DefaultIsHalfOfMemoryUnlessOverridden) {
  const int64_t avail = availableMemoryBytes();
  ASSERT_GT(avail, int64_t{64} << 20) << "sysconf should report physical memory on Linux";
  ::unsetenv("ATTNSCOPE_MEMORY_BUDGET");
  EXPECT_EQ(defaultMemoryBudget(), avail / 2);
  ::setenv("ATTNSCOPE_MEMORY_BUDGET", "3M", 1);
  EXPECT_EQ(defaultMemoryBudget(), int64_t{3} << 20);
  ::unsetenv("ATTNSCOPE_MEMORY_BUDGET");
}

AttentionInput twentyTokens(int dModel) {
  std::vector<std::string> toks;
  for (int i = 0; i < 20; ++i) toks.push_back("t" + std::to_string(i));
  return inputFromTokens(toks, dModel, 1);
}

TEST(MemoryBudget, EngineRefusesOverBudgetWithSizeAndTiledHint) {
  AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 8;
  spec.exec = ExecPath::Naive;
  const int64_t need = 2 * 20 * 20 * 4 * 4;  // 4 matrices per head: 12800 bytes = 12.5 KiB
  spec.memoryBudget = need / 2;
  auto r = runAttention(twentyTokens(8), spec);
  ASSERT_FALSE(r.ok());
  const std::string& msg = r.error().message;
  EXPECT_NE(msg.find("20 x 20"), std::string::npos) << msg;
  EXPECT_NE(msg.find("about 12.5 KiB"), std::string::npos) << msg;
  EXPECT_NE(msg.find("budget of 6.2 KiB"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--exec tiled"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
  spec.memoryBudget = need - 1;
  EXPECT_FALSE(runAttention(twentyTokens(8), spec).ok());
  spec.memoryBudget = need;  // exactly at the budget is allowed
  auto ok = runAttention(twentyTokens(8), spec);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->nq(), 20);
}

TEST(MemoryBudget, TiledMetricsOnlyPathFitsWhereNaiveDoesNot) {
  AttentionSpec spec;
  spec.heads = 2;
  spec.dModel = 8;
  spec.memoryBudget = 2 * 2 * 20 * 20 * 4;  // two matrices per head
  spec.exec = ExecPath::Naive;
  EXPECT_FALSE(runAttention(twentyTokens(8), spec).ok());
  spec.exec = ExecPath::Tiled;  // keeps only the weights and scaled logits: exactly the budget
  auto r = runAttention(twentyTokens(8), spec);
  ASSERT_TRUE(r.ok()) << r.error().message;
  spec.memoryBudget = 16;
  spec.weightsHead = -2;  // metrics only: no N x N at all
  r = runAttention(twentyTokens(8), spec);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->heads[0].entropy.size(), 20);
}

TEST(MemoryBudget, ProjectedInputsAreCheckedToo) {
  AttentionInput in;
  for (int h = 0; h < 3; ++h) {
    in.q.push_back(Mat::Ones(50, 4));
    in.k.push_back(Mat::Ones(60, 4));
    in.v.push_back(Mat::Ones(60, 2));
  }
  AttentionSpec spec;
  spec.exec = ExecPath::Naive;
  spec.memoryBudget = 1 << 10;
  auto r = runAttention(in, spec);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("50 x 60 attention with 3 head(s)"), std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace attn
