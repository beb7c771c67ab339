#include "attn/engine/large_pages.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

#if defined(__GLIBC__) && defined(__linux__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ATTN_LARGE_PAGES_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define ATTN_LARGE_PAGES_SANITIZED 1
#endif
#endif

namespace attn {

namespace {

LargePages& state() {
  static LargePages s{false, "not asked"};
  return s;
}

LargePages decide() {
  const char* env = std::getenv("ATTNSCOPE_HUGE_PAGES");
  if (env && std::strcmp(env, "0") == 0) return {false, "ATTNSCOPE_HUGE_PAGES=0"};
#if defined(ATTN_LARGE_PAGES_SANITIZED)
  return {false, "sanitizer build"};
#elif !defined(__GLIBC__) || !defined(__linux__) || !defined(MADV_HUGEPAGE)
  return {false, "not glibc on Linux"};
#else
  // Allocations below 2 GiB come from the heap (not one mmap each; the
  // threshold is above the reserve, or the reserve itself would be mmap'd),
  // stay there when freed (a later one reuses the marked pages), and every
  // thread allocates from the main arena (a thread's own arena would be
  // unmarked).
  static_assert(kHeapReserve < static_cast<std::size_t>(std::numeric_limits<int>::max()));
  if (mallopt(M_MMAP_THRESHOLD, std::numeric_limits<int>::max()) != 1) return {false, "mallopt refused"};
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  mallopt(M_ARENA_MAX, 1);
  // Grow the heap by the reserve, mark all of its pages, give it back to the
  // allocator: later allocations are carved from the marked mapping (the
  // kernel uses 2 MiB pages for its 2 MiB-aligned stretches).
  void* block = std::malloc(kHeapReserve);
  if (!block) return {false, "no address space for the reserve"};
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(block) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(block) + kHeapReserve) & ~(page - 1);
  const bool marked = madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) == 0;
  std::free(block);
  return marked ? LargePages{true, ""} : LargePages{false, "the kernel refused MADV_HUGEPAGE"};
#endif
}

}  // namespace

LargePages preferLargePages() { return state() = decide(); }

std::string largePagesLine() {
  const LargePages& s = state();
  return s.applied ? "heap: 2 MiB pages asked (MADV_HUGEPAGE on its first 1.5 GiB; the kernel grants them "
                     "when free)"
                   : std::string("heap: 4 KiB pages (") + s.why + ")";
}

}  // namespace attn
