// The CLI's heap marked for transparent huge pages (a `metrics` run
// first-touched thousands of 4 KiB pages at ~14 us each here). Checked through
// the kernel's own account of the mappings (VmFlags "hg": MADV_HUGEPAGE in
// /proc/self/smaps), not by timing; whether the kernel then finds free 2 MiB
// pages is its business.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include "attn/engine/large_pages.h"
#include "cli_runner.h"

namespace attn::test {
namespace {

using attn::LargePages;
using attn::preferLargePages;

// VmFlags of the mapping holding address a ("" when none holds it).
std::string vmFlagsOf(const void* a) {
  std::ifstream smaps("/proc/self/smaps");
  const auto x = reinterpret_cast<std::uintptr_t>(a);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2) {
      inside = lo <= x && x < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line.substr(8) + " ";
    }
  }
  return "";
}

bool sanitized(const LargePages& r) { return !r.applied && std::strcmp(r.why, "sanitizer build") == 0; }

TEST(CliLargePages, TheVariableTurnsItOffBeforeAnythingChanges) {
  ::setenv("ATTNSCOPE_HUGE_PAGES", "0", 1);
  const LargePages r = preferLargePages();
  ::unsetenv("ATTNSCOPE_HUGE_PAGES");
  EXPECT_FALSE(r.applied);
  EXPECT_STREQ(r.why, "ATTNSCOPE_HUGE_PAGES=0");
}

TEST(CliLargePages, LargeAllocationsLandInMarkedHeap) {
#if !defined(__linux__) || !defined(__GLIBC__)
  GTEST_SKIP() << "glibc on Linux only";
#endif
  if (!std::ifstream("/proc/self/smaps")) GTEST_SKIP() << "no /proc/self/smaps";
  const LargePages r = preferLargePages();
  if (sanitized(r)) GTEST_SKIP() << "the sanitizer owns the allocator";
  ASSERT_TRUE(r.applied) << r.why;
  // Sizes that glibc would otherwise give a mapping of their own (over its
  // 128 KiB threshold): a block of rows, a big weights array. (Smaller ones
  // may reuse free space in the part of the heap grown before the reserve,
  // which here holds the test framework's own allocations.)
  // 700 MiB: every map of GPT-2 small at its full 1,024 tokens in one block.
  for (const std::size_t mb : {2, 8, 100, 700}) {
    std::unique_ptr<char[]> block(new char[mb << 20]);
    block[0] = 1;
    const std::string flags = vmFlagsOf(block.get() + (mb << 19));
    EXPECT_NE(flags.find(" hg "), std::string::npos) << mb << " MiB: VmFlags:" << flags;
  }
}

TEST(CliLargePages, ProfileSaysWhichPagesTheHeapAsked) {
  const auto on = runCli({"metrics", "--text", "the cat sat on the mat", "--profile"});
  ASSERT_EQ(on.status, 0) << on.err;
  const auto off = runCliUnder("export ATTNSCOPE_HUGE_PAGES=0", {"metrics", "--text", "the cat sat on the mat", "--profile"});
  ASSERT_EQ(off.status, 0) << off.err;
  EXPECT_NE((off.out + off.err).find("heap: 4 KiB pages (ATTNSCOPE_HUGE_PAGES=0)"), std::string::npos)
      << off.out << off.err;
  const std::string all = on.out + on.err;
  EXPECT_TRUE(all.find("heap: 2 MiB pages asked (MADV_HUGEPAGE") != std::string::npos ||
              all.find("heap: 4 KiB pages (sanitizer build)") != std::string::npos)
      << all;
}

}  // namespace
}  // namespace attn::test
