#pragma once
// Transparent huge pages for the process heap (end-to-end speed; the CLI and the window).
//
// A `metrics` run first-touches tens of MB (keys, their packed copy, the
// per-thread weight blocks); in 4 KiB pages that is thousands of page faults,
// and on virtual machines each fault is expensive (docs/performance.md). Linux backs a region marked
// MADV_HUGEPAGE with 2 MiB pages where it can (THP "madvise" mode, Debian's default), so one fault covers 512
// pages. Large allocations from glibc are separate mmap regions that cannot be marked before use; so the heap
// serves them instead, and its first kHeapReserve bytes are grown once and marked.
#include <cstddef>
#include <string>

namespace attn {

/// Bytes of heap grown and marked at start-up (virtual: untouched pages cost
/// no memory). Large enough for every map of a model at its full context (GPT-2
/// small at 1,024 tokens keeps 12 x 12 x 1024^2 floats, 604 MB: with 4 KiB pages
/// their first touch was half the forward's time on a virtual machine); below
/// 2 GiB, because glibc's thresholds are ints.
inline constexpr std::size_t kHeapReserve = std::size_t{1536} << 20;

/// What preferLargePages did, for tests and `--profile`.
struct LargePages {
  bool applied = false;  // the heap was grown and marked
  const char* why = "";  // when not: the reason
};

/// Call first in main(), before other threads exist. Does nothing (and says
/// why) outside glibc on Linux, under a sanitizer (it owns the allocator), or
/// when ATTNSCOPE_HUGE_PAGES=0. Never fails the program: a refusal of any
/// step leaves the allocator as it was before that step.
LargePages preferLargePages();

/// One line for `--profile`: "heap: 2 MiB pages asked (...)" or
/// "heap: 4 KiB pages (<why>)".
std::string largePagesLine();

}  // namespace attn
