// The x86-64 levels: names, the glibc tunables a forced restart uses, and the
// level running now against the CPU's own flags (/proc/cpuinfo, read here
// independently of the program's cpuid).
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <string>

#include "attn/cpu/cpu_level.h"
#include "attn/engine/system_info.h"
#include "proc_cpu_flags.h"

namespace attn::cpu {
namespace {

TEST(CpuLevel, NamesRoundTripAndUnknownNamesAreRefused) {
  for (Level l : {Level::Baseline, Level::Avx2, Level::Avx512}) EXPECT_EQ(parseLevel(levelName(l)), l);
  EXPECT_FALSE(parseLevel("avx9000"));
  EXPECT_FALSE(parseLevel(""));
  EXPECT_FALSE(parseLevel("AVX2"));
}

TEST(CpuLevel, RestartTunablesHideTheHigherLevelsAndKeepTheCallersOthers) {
  EXPECT_EQ(restartTunables(Level::Baseline, nullptr), "glibc.cpu.hwcaps=-AVX2,-AVX512F");
  EXPECT_EQ(restartTunables(Level::Avx2, nullptr), "glibc.cpu.hwcaps=-AVX512F");
  EXPECT_EQ(restartTunables(Level::Avx512, nullptr), "");
  EXPECT_EQ(restartTunables(Level::Avx2, "glibc.malloc.check=3"), "glibc.malloc.check=3:glibc.cpu.hwcaps=-AVX512F");
  // An earlier hwcaps entry (a parent's mask) is replaced, not stacked; the others stay in order.
  EXPECT_EQ(restartTunables(Level::Avx512, "glibc.malloc.check=3:glibc.cpu.hwcaps=-AVX2,-AVX512F:glibc.malloc.tcache_count=0"),
            "glibc.malloc.check=3:glibc.malloc.tcache_count=0");
  EXPECT_EQ(restartTunables(Level::Baseline, "glibc.cpu.hwcaps=-AVX512F::"), "glibc.cpu.hwcaps=-AVX2,-AVX512F");
}

TEST(CpuLevel, TheRunningLevelIsOneThisCpuHasAndTheVectorCodeMatchesIt) {
  const auto flags = test::procCpuFlags();
  if (flags.empty()) GTEST_SKIP() << "no /proc/cpuinfo flags";
  auto has = [&](const char* f) { return flags.count(f) > 0; };
  const Level level = activeLevel();
  if (level != Level::Baseline) {
    EXPECT_TRUE(has("avx2") && has("fma"));
  }
  if (level == Level::Avx512) {
    EXPECT_TRUE(has("avx512f") && has("avx512bw") && has("avx512dq") && has("avx512vl"));
  }
  // The level running is one this installation has, and the CPU's own detection agrees it can run it.
  bool listed = false;
  for (Level l : availableLevels()) listed = listed || l == level;
  EXPECT_TRUE(listed);
  EXPECT_LE(static_cast<int>(level), static_cast<int>(detectedLevel()));
  EXPECT_EQ(levelName(compiledLevel()), levelName(level)) << "the engine running is the copy compiled for its level";
  // Eigen's packets inside the engine library (its own translation unit, not this test's).
  const std::string simd = systemInfo().eigenSimd;
  // (Eigen 3.4 names any AVX build "AVX SSE, ..." without AVX2/FMA.)
  const bool avx512 = simd.find("AVX512") != std::string::npos;
  const bool avx = simd.find("AVX") != std::string::npos;
  EXPECT_EQ(avx512, level == Level::Avx512) << simd;
  EXPECT_EQ(avx, level != Level::Baseline) << simd;
}

}  // namespace
}  // namespace attn::cpu
